package config

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Attribute describes one attribute of a managed object: its type, whether
// it must be given, its default, whether it is known only after apply, and
// whether changing it forces the object to be replaced.
type Attribute struct {
	Name     string
	Type     cty.Type
	Required bool
	// Default is used when the attribute is omitted; cty.NilVal means null.
	// Defaults that depend on other attributes (qp.type) are filled by the
	// loader and documented on the attribute.
	Default cty.Value
	// Computed attributes are set by apply and cannot be written in the
	// configuration; until then they are unknown.
	Computed bool
	// Replace: a change of this attribute destroys and re-creates the
	// object; otherwise the change is applied in place.
	Replace     bool
	Description string

	defaultInt    int64 // Default as a whole number, when it is one (cached by init)
	hasDefaultInt bool
}

// NestedBlock is a block that may appear at most once inside an object.
type NestedBlock struct {
	Name    string
	Block   *Block
	Replace bool // adding or removing the block forces replacement
	// Always: an omitted block means the block with all its defaults
	// (accept, connect); otherwise an omitted block is null (qp, probe).
	Always bool
}

// Block is the schema of an object kind or of a nested block.
type Block struct {
	Attributes []*Attribute
	Blocks     []*NestedBlock

	impliedType cty.Type        // cached by init
	bodySchema  *hcl.BodySchema // cached by init: hclSchema plus computed attributes
}

// Attribute returns the named attribute's schema, or nil.
func (b *Block) Attribute(name string) *Attribute {
	for _, a := range b.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// attrIndex is the index of the named attribute in b.Attributes, or -1.
func (b *Block) attrIndex(name string) int {
	for i, a := range b.Attributes {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// blockIndex is the index of the named nested block in b.Blocks, or -1.
func (b *Block) blockIndex(name string) int {
	for i, nb := range b.Blocks {
		if nb.Name == name {
			return i
		}
	}
	return -1
}

// NestedBlock returns the named nested block's schema, or nil.
func (b *Block) NestedBlock(name string) *NestedBlock {
	for _, nb := range b.Blocks {
		if nb.Name == name {
			return nb
		}
	}
	return nil
}

// ImpliedType is the object type of a value of this block, computed
// attributes included; absent nested blocks are null objects.
func (b *Block) ImpliedType() cty.Type {
	if b.impliedType != cty.NilType {
		return b.impliedType
	}
	return b.computeImpliedType()
}

func (b *Block) computeImpliedType() cty.Type {
	at := make(map[string]cty.Type, len(b.Attributes)+len(b.Blocks))
	for _, a := range b.Attributes {
		at[a.Name] = a.Type
	}
	for _, nb := range b.Blocks {
		at[nb.Name] = nb.Block.ImpliedType()
	}
	return cty.Object(at)
}

// names lists attribute and block names, for "did you mean".
func (b *Block) names() []string {
	var n []string
	for _, a := range b.Attributes {
		n = append(n, a.Name)
	}
	for _, nb := range b.Blocks {
		n = append(n, nb.Name)
	}
	return n
}

// blockNames lists the nested block types, for "did you mean".
func (b *Block) blockNames() []string {
	var n []string
	for _, nb := range b.Blocks {
		n = append(n, nb.Name)
	}
	return n
}

// hclSchema is the HCL body schema of the configurable part of b.
func (b *Block) hclSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range b.Attributes {
		if !a.Computed {
			s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a.Name, Required: a.Required})
		}
	}
	for _, nb := range b.Blocks {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: nb.Name})
	}
	if len(b.Blocks) > 0 {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: "dynamic", LabelNames: []string{"type"}})
	}
	return s
}

// Schema returns the schema of an object kind, or nil for an unknown kind.
func Schema(k addrs.Kind) *Block { return schemas[k] }

// SchemaVersion is the version of the schemas: the state records it with
// each object (schema_version), so that a state written by a later
// rdmaform, with other schemas, is refused rather than misread.
const SchemaVersion = 0

// RequiresReplace reports whether a change at path (attribute names from
// the object's root, such as cty.GetAttrPath("qp").GetAttr("max_send_wr"))
// forces replacement of an object of kind k. A path into a nested block
// follows the attribute's own Replace; a path naming a whole nested block
// follows the block's Replace.
func RequiresReplace(k addrs.Kind, path cty.Path) bool {
	b := schemas[k]
	for i, step := range path {
		ga, ok := step.(cty.GetAttrStep)
		if !ok || b == nil {
			return false
		}
		if a := b.Attribute(ga.Name); a != nil {
			return a.Replace && i == len(path)-1
		}
		nb := b.NestedBlock(ga.Name)
		if nb == nil {
			return false
		}
		if i == len(path)-1 {
			return nb.Replace
		}
		b = nb.Block
	}
	return false
}

func computed(name, desc string) *Attribute {
	return &Attribute{Name: name, Type: cty.String, Computed: true, Description: desc}
}

func computedNumber(name, desc string) *Attribute {
	return &Attribute{Name: name, Type: cty.Number, Computed: true, Description: desc}
}

// Defaults, documented here and in the package doc.
const (
	DefaultPortSpace = "tcp"
	// DefaultBacklog is rdma_listen's backlog: the kernel's max_backlog. A
	// burst of connect requests beyond the backlog is dropped and retried
	// only after the CM's timeout (measured: 128 made 1,000 connects take
	// seconds longer than 1024).
	DefaultBacklog = 1024
	// DefaultMaxConnections bounds the connections a listener accepts when
	// its accept block says nothing (0 says no limit): each holds a cm_id,
	// a QP, memory for its queues and two descriptors of the agent's, and
	// any peer that reaches the port can ask for more; it matches
	// DefaultBacklog. A datagram listener makes no connections and has no
	// default.
	DefaultMaxConnections = 1024
	DefaultMaxWR          = 64
	DefaultMaxSGE         = 1
	// DefaultSRQMaxWR is an SRQ's receives: enough for a few hundred
	// connections' probes at once, 1 MiB of the agent's echo buffers.
	DefaultSRQMaxWR       = 256
	DefaultRetryCount     = 7
	DefaultRNRRetryCount  = 7    // 7 means retry forever on receiver-not-ready
	DefaultConnectTimeout = "2s" // address and route resolution, as rping's 2000 ms
	DefaultMinBackoff     = "1s"
	DefaultMaxBackoff     = "30s"
	DefaultProbeInterval  = "1s"
	DefaultProbeSize      = 64
	DefaultProbeTimeout   = "1s"
	// DefaultCreateTimeout bounds an endpoint's create: its first connect's
	// wait for ESTABLISHED (the CM retries an unanswered request for
	// longer; a burst of a thousand connects under Soft-RoCE takes
	// seconds to be answered).
	DefaultCreateTimeout = "30s"
)

var qpBlock = &Block{Attributes: []*Attribute{
	{Name: "type", Type: cty.String, Replace: true, Description: `"rc", "uc" or "ud"; default "rc" for the tcp and ib port spaces, "ud" for udp and ipoib`},
	{Name: "max_send_wr", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxWR), Replace: true},
	{Name: "max_recv_wr", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxWR), Replace: true},
	{Name: "max_send_sge", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxSGE), Replace: true},
	{Name: "max_recv_sge", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxSGE), Replace: true},
	{Name: "max_inline_data", Type: cty.Number, Default: cty.NumberIntVal(0), Replace: true},
	{Name: "sq_sig_all", Type: cty.Bool, Default: cty.False, Replace: true},
}}

// srqBlock is a listener's shared receive queue (ibv_srq_init_attr):
// named as the qp block's receive caps, which it replaces.
var srqBlock = &Block{Attributes: []*Attribute{
	{Name: "max_recv_wr", Type: cty.Number, Default: cty.NumberIntVal(DefaultSRQMaxWR), Replace: true, Description: "receives the SRQ holds for all the listener's connections (max_wr)"},
	{Name: "max_recv_sge", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxSGE), Replace: true, Description: "scatter/gather entries per receive (max_sge)"},
}}

// The options blocks are rdma_set_option's settings; an omitted one keeps
// the kernel's default. Each is set before the bind or the route
// resolution that reads it (the ACK timeout before the QP reaches RTS):
// none can change on a live id, so a change replaces the object.
var (
	listenerOptionsBlock = &Block{Attributes: []*Attribute{
		{Name: "type_of_service", Type: cty.Number, Replace: true, Description: "RDMA_OPTION_ID_TOS, 0-255: the IP TOS byte, RoCE's traffic class"},
		{Name: "ack_timeout", Type: cty.Number, Replace: true, Description: "RDMA_OPTION_ID_ACK_TIMEOUT, 0-31: the local ACK timeout, 4.096 µs × 2^n, of each accepted RC connection"},
		{Name: "reuse_address", Type: cty.Bool, Replace: true, Description: "RDMA_OPTION_ID_REUSEADDR"},
		{Name: "ipv6_only", Type: cty.Bool, Replace: true, Description: "RDMA_OPTION_ID_AFONLY (IPV6_V6ONLY): an IPv6 listener takes no IPv4 connections"},
	}}
	endpointOptionsBlock = &Block{Attributes: []*Attribute{
		{Name: "type_of_service", Type: cty.Number, Replace: true, Description: "RDMA_OPTION_ID_TOS, 0-255: the IP TOS byte, RoCE's traffic class"},
		{Name: "ack_timeout", Type: cty.Number, Replace: true, Description: "RDMA_OPTION_ID_ACK_TIMEOUT, 0-31: the local ACK timeout, 4.096 µs × 2^n"},
		{Name: "reuse_address", Type: cty.Bool, Replace: true, Description: "RDMA_OPTION_ID_REUSEADDR"},
	}}
)

var lifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "prevent_destroy"}, {Name: "create_before_destroy"}, {Name: "ignore_changes"}, {Name: "replace_triggered_by"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}, {Type: "postcondition"}}}

var schemas = map[addrs.Kind]*Block{
	addrs.ProtectionDomain: {Attributes: []*Attribute{
		{Name: "device", Type: cty.String, Required: true, Replace: true, Description: "RDMA device name, such as rxe0"},
		computed("id", "identifier of the protection domain"),
		computed("status", "state reported by the agent"),
	}},
	addrs.Listener: {
		Attributes: []*Attribute{
			{Name: "address", Type: cty.String, Required: true, Replace: true},
			{Name: "port", Type: cty.Number, Required: true, Replace: true},
			{Name: "port_space", Type: cty.String, Default: cty.StringVal(DefaultPortSpace), Replace: true},
			{Name: "backlog", Type: cty.Number, Default: cty.NumberIntVal(DefaultBacklog), Replace: true},
			{Name: "pd", Type: cty.String, Replace: true, Description: "a protection domain's id; null means the device's default PD"},
			computed("id", "identifier of the listening rdma_cm_id"),
			computed("device", "device the listener is bound to"),
			computedNumber("port_num", "device port the listener is bound to"),
			computed("local_address", "address bound"),
			computedNumber("local_port", "port bound"),
			computed("status", "state reported by the agent"),
		},
		Blocks: []*NestedBlock{
			{Name: "qp", Block: qpBlock, Replace: true},
			{Name: "options", Block: listenerOptionsBlock, Replace: true},
			// Every accepted connection's QP is made on the SRQ: neither
			// can change under live connections.
			{Name: "srq", Block: srqBlock, Replace: true},
			{Name: "accept", Always: true, Block: &Block{Attributes: []*Attribute{
				// The agent changes max_connections in place; the other
				// accept parameters are the listener's for its lifetime
				// (its connections were accepted with them), so a change
				// replaces it.
				{Name: "responder_resources", Type: cty.Number, Replace: true, Description: "RDMA READs and atomics the peer may have outstanding; null: the least of the request's offer and the device's max_qp_rd_atom"},
				{Name: "initiator_depth", Type: cty.Number, Replace: true, Description: "RDMA READs and atomics this side may have outstanding; null: the least of the request's offer and the device's max_qp_init_rd_atom"},
				{Name: "private_data", Type: cty.String, Description: "sent in the accept reply", Replace: true},
				{Name: "private_data_base64", Type: cty.String, Description: "private_data as base64, for bytes that are not UTF-8", Replace: true},
				{Name: "reject_private_data", Type: cty.String, Description: "sent when a request is rejected (over max_connections)", Replace: true},
				{Name: "reject_private_data_base64", Type: cty.String, Description: "reject_private_data as base64, for bytes that are not UTF-8", Replace: true},
				{Name: "max_connections", Type: cty.Number, Default: cty.NumberIntVal(DefaultMaxConnections), Description: "connections accepted at most (1024 when omitted); 0 means no limit"},
				{Name: "echo", Type: cty.Bool, Default: cty.False, Replace: true},
			}}},
		},
	},
	addrs.Endpoint: {
		Attributes: []*Attribute{
			{Name: "address", Type: cty.String, Required: true, Replace: true},
			{Name: "port", Type: cty.Number, Required: true, Replace: true},
			{Name: "source_address", Type: cty.String, Replace: true},
			{Name: "port_space", Type: cty.String, Default: cty.StringVal(DefaultPortSpace), Replace: true},
			{Name: "pd", Type: cty.String, Replace: true},
			computed("id", "identifier of the connected rdma_cm_id"),
			computedNumber("qp_num", "number of the endpoint's QP"),
			computed("device", "device the connection runs on"),
			computedNumber("port_num", "device port the connection runs on"),
			computed("local_address", "local address of the connection"),
			computedNumber("local_port", "local port of the connection"),
			computed("status", "state reported by the agent"),
		},
		Blocks: []*NestedBlock{
			{Name: "qp", Block: qpBlock, Replace: true},
			{Name: "options", Block: endpointOptionsBlock, Replace: true},
			// Connection parameters are negotiated once: changing them means
			// connecting again.
			{Name: "connect", Always: true, Replace: true, Block: &Block{Attributes: []*Attribute{
				{Name: "responder_resources", Type: cty.Number, Replace: true, Description: "RDMA READs and atomics the peer may have outstanding; null: the device's max_qp_rd_atom"},
				{Name: "initiator_depth", Type: cty.Number, Replace: true, Description: "RDMA READs and atomics this side may have outstanding; null: the device's max_qp_init_rd_atom"},
				{Name: "retry_count", Type: cty.Number, Default: cty.NumberIntVal(DefaultRetryCount), Replace: true},
				{Name: "rnr_retry_count", Type: cty.Number, Default: cty.NumberIntVal(DefaultRNRRetryCount), Replace: true},
				{Name: "private_data", Type: cty.String, Replace: true},
				{Name: "private_data_base64", Type: cty.String, Description: "private_data as base64, for bytes that are not UTF-8", Replace: true},
				{Name: "timeout", Type: cty.String, Default: cty.StringVal(DefaultConnectTimeout), Replace: true},
			}}},
			{Name: "reconnect", Block: &Block{Attributes: []*Attribute{
				{Name: "min_backoff", Type: cty.String, Default: cty.StringVal(DefaultMinBackoff)},
				{Name: "max_backoff", Type: cty.String, Default: cty.StringVal(DefaultMaxBackoff)},
			}}},
			{Name: "probe", Block: &Block{Attributes: []*Attribute{
				{Name: "interval", Type: cty.String, Default: cty.StringVal(DefaultProbeInterval)},
				{Name: "size", Type: cty.Number, Default: cty.NumberIntVal(DefaultProbeSize)},
				{Name: "timeout", Type: cty.String, Default: cty.StringVal(DefaultProbeTimeout)},
				// The agent changes the mode in place: one prober per
				// connection serves every mode (probe_mode.go).
				{Name: "mode", Type: cty.String, Default: cty.StringVal(ProbeSend), Description: "send (echoed SEND), write (RDMA WRITE), read (RDMA READ) or rping (rping's exchange with rping -s)"},
			}}},
			// Terraform's timeouts block: how long an operation may take.
			// Only the create waits (for ESTABLISHED); a change applies to
			// the next create, so it changes in place.
			{Name: "timeouts", Block: &Block{Attributes: []*Attribute{
				{Name: "create", Type: cty.String, Default: cty.StringVal(DefaultCreateTimeout), Description: "how long the create waits for ESTABLISHED"},
			}}},
		},
	},
}

func init() {
	var cache func(b *Block)
	cache = func(b *Block) {
		for _, nb := range b.Blocks {
			cache(nb.Block)
		}
		b.impliedType = b.computeImpliedType()
		b.bodySchema = b.hclSchema()
		// Computed attributes are accepted by the schema only to be
		// rejected with a clearer message than "unsupported argument".
		for _, a := range b.Attributes {
			if a.Computed {
				b.bodySchema.Attributes = append(b.bodySchema.Attributes, hcl.AttributeSchema{Name: a.Name})
			}
			if a.Default != cty.NilVal && a.Default.Type() == cty.Number {
				n, acc := a.Default.AsBigFloat().Int64()
				a.defaultInt, a.hasDefaultInt = n, acc == big.Exact && a.Default.AsBigFloat().IsInt()
			}
		}
	}
	for _, b := range schemas {
		cache(b)
	}
	cache(agentBlockSchema)
}
