package config

import (
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Config is an evaluated configuration: the desired state.
type Config struct {
	// Workspace is the workspace the configuration was loaded for.
	Workspace string
	Settings  *Settings
	Variables map[string]*Variable
	Locals    map[string]cty.Value
	Resources map[addrs.Resource]*Resource
	Instances map[addrs.Instance]*Instance
	Outputs   map[string]*Output
	// Moved are the moved blocks, in source order.
	Moved []*Moved
	// Checks are the check blocks, in source order.
	Checks []*Check
	// Removed are the removed blocks, in source order.
	Removed []*Removed
	// Imports are the import blocks, in source order.
	Imports []*Import
	// Agents are the agent blocks' instances, by Key.
	Agents map[string]*Agent
	// PlanTimestamp is plantimestamp() in its expressions (UTC, whole
	// seconds): a plan made from it records it, so that its apply
	// evaluates the same.
	PlanTimestamp time.Time

	// Every value, for Eval, made on its first use by makeCtx.
	ctxOnce sync.Once
	makeCtx func() *hcl.EvalContext
	ctx     *hcl.EvalContext

	byResourceOnce sync.Once
	byResource     map[addrs.Resource][]*Instance // see instancesByResource

	// localOrder is the locals' expressions in the order they were
	// evaluated (each after those it references), for localsWith.
	localOrder     []localExpr
	dependentsOnce sync.Once
	dependents     localDependents // see localDependentsOf

	// cwd is path.cwd (see Loader.StartDir).
	cwd string
	// funcs are the functions of its expressions (see Loader.functions).
	funcs map[string]function.Function

	// agentBlocks are the agent blocks, by name; agentsVal their values
	// as expressions see them (agent.compute.address).
	agentBlocks map[string]*agentBlock
	agentsVal   cty.Value

	// secrets are the texts of sensitive values, which diagnostics do
	// not show (see scrub).
	secrets []string
}

func (c *Config) builtins() builtins {
	return builtins{workspace: c.Workspace, cwd: c.cwd, agents: c.agentsVal}
}

// evalContext is the context of every value, made on first use.
func (c *Config) evalContext() *hcl.EvalContext {
	c.ctxOnce.Do(func() {
		if c.makeCtx != nil {
			c.ctx, c.makeCtx = c.makeCtx(), nil
		}
	})
	return c.ctx
}

// AgentNamespace is the namespace the agent holds this configuration's
// objects under: the rdmaform { agent { namespace } } setting, or "";
// in a workspace other than the default, the workspace's name joined to
// it (NAMESPACE.WORKSPACE), so that workspaces of one configuration do
// not share objects.
func (c *Config) AgentNamespace() string {
	ns := ""
	if c.Settings != nil && c.Settings.Agent != nil {
		ns = c.Settings.Agent.Namespace
	}
	if c.Workspace == "" || c.Workspace == DefaultWorkspace {
		return ns
	}
	if ns == "" {
		return c.Workspace
	}
	return ns + "." + c.Workspace
}

// Eval evaluates an expression against the configuration's values, as
// the console does: var.x, local.x, listener.name.port, functions.
func (c *Config) Eval(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	return c.evalIn(expr, c.evalContext())
}

// evalIn evaluates expr in ctx, its diagnostics quoting no sensitive
// value.
func (c *Config) evalIn(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	for i, d := range diags {
		diags[i] = scrub(d, c.secrets)
	}
	return v, diags
}

// SortedInstances returns every instance in creation order (addrs.Less).
func (c *Config) SortedInstances() []*Instance {
	out := make([]*Instance, 0, len(c.Instances))
	for _, i := range c.Instances {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Addr.Less(out[b].Addr) })
	return out
}

// Resource is one protection_domain, listener or endpoint block.
type Resource struct {
	Addr addrs.Resource
	// Count and ForEach are the meta-argument expressions (nil if absent).
	Count, ForEach hcl.Expression
	// DependsOn lists the resources this block's instances depend on: the
	// ones its expressions reference (directly or through locals) and its
	// depends_on, sorted and without duplicates.
	DependsOn []addrs.Resource
	Lifecycle Lifecycle
	DeclRange hcl.Range

	key       string // Addr.String(), the graph node's key
	body      *bodyTemplate
	dependsOn []hcl.Traversal
	agent     *agentRef // the agent meta-argument, nil without one

	afterApplyOnce sync.Once
	afterApply     bool // see UsesValuesAfterApply
	// instancesUnknown: in validate mode, its count or for_each is not
	// known, so neither are its instances nor its value.
	instancesUnknown bool
}

// Lifecycle is a block's lifecycle meta-argument.
type Lifecycle struct {
	PreventDestroy      bool
	CreateBeforeDestroy bool
	// IgnoreChanges lists attribute paths whose changes the planner
	// ignores; IgnoreAllChanges is ignore_changes = all.
	IgnoreChanges    []cty.Path
	IgnoreAllChanges bool
	// Preconditions are checked when planning (and again by apply when
	// they use values known only after apply); Postconditions by apply,
	// with self the object it made or updated.
	Preconditions, Postconditions []*Condition
	// ReplaceTriggeredBy replaces the object when what they reference
	// changes.
	ReplaceTriggeredBy []Trigger
}

// Instance is one object to manage.
type Instance struct {
	Addr     addrs.Instance
	Resource *Resource
	// PreconditionsAfterApply: a precondition uses values known only
	// after apply, so apply checks it (Config.CheckConditions) before
	// making the object.
	PreconditionsAfterApply bool
	// Value is the evaluated object: every attribute of Schema(kind) with
	// defaults filled in; attributes known only after apply (id, qp_num,
	// ...) and anything computed from them are unknown. Absent optional
	// blocks (qp, reconnect, probe) are null.
	Value cty.Value
	// Sensitive lists the attributes whose value is sensitive: computed
	// from a sensitive variable or sensitive(), directly or through
	// locals, and not through nonsensitive() (see Functions). Value and
	// the typed struct carry the values themselves, unmarked; the planner
	// and its renderers show these as (sensitive value). Nil when there
	// are none; otherwise in schema order, nested blocks' attributes
	// (accept.private_data) after the top level's.
	Sensitive []cty.Path
	// Agent is the Key of the agent the object's agent meta-argument
	// chose (see Config.Agents), or "" for the local agent.
	Agent string

	// Exactly one of these is set, by Addr.Kind. Fields whose value is
	// unknown (see Known) hold their zero value.
	ProtectionDomain *ProtectionDomain
	Listener         *Listener
	Endpoint         *Endpoint
}

// Known reports whether the value at path (attribute names) is known now;
// an unknown one shows as (known after apply).
func (i *Instance) Known(path ...string) bool {
	v := i.Value
	for _, name := range path {
		if !v.IsKnown() {
			return false
		}
		if v.IsNull() || !v.Type().IsObjectType() || !v.Type().HasAttribute(name) {
			return true
		}
		v = v.GetAttr(name)
	}
	return v.IsWhollyKnown()
}

// IsSensitive reports whether the attribute at path is sensitive (see
// Sensitive).
func (i *Instance) IsSensitive(path cty.Path) bool {
	for _, p := range i.Sensitive {
		if p.Equals(path) {
			return true
		}
	}
	return false
}

// PortSpace is an rdma_port_space: "tcp", "udp", "ib" or "ipoib".
type PortSpace string

const (
	PortSpaceTCP   PortSpace = "tcp"
	PortSpaceUDP   PortSpace = "udp"
	PortSpaceIB    PortSpace = "ib"
	PortSpaceIPoIB PortSpace = "ipoib"
)

// QPType is a queue pair type: "rc", "uc" or "ud".
type QPType string

const (
	QPTypeRC QPType = "rc"
	QPTypeUC QPType = "uc"
	QPTypeUD QPType = "ud"
)

// ProtectionDomain is a protection_domain block's instance.
type ProtectionDomain struct {
	Device string
}

// Listener is the passive side: rdma_bind_addr, rdma_listen, rdma_accept.
type Listener struct {
	Address   string
	Port      int
	PortSpace PortSpace
	Backlog   int
	PD        string   // "" means the device's default PD
	QP        *QP      // nil means no QP (a NULL qp_init_attr)
	Options   *Options // nil: no options block
	SRQ       *SRQ     // nil: each connection has its own receive queue
	Accept    Accept
}

// Endpoint is the active side: rdma_resolve_addr/route, rdma_connect.
type Endpoint struct {
	Address       string
	Port          int
	SourceAddress string // "" means any
	PortSpace     PortSpace
	PD            string
	QP            *QP
	Options       *Options // nil: no options block
	Connect       Connect
	Reconnect     *Reconnect // nil: no automatic reconnection
	Probe         *Probe     // nil: no data-path probe
	// CreateTimeout is timeouts.create: how long the create waits for
	// ESTABLISHED; 0 means DefaultCreateTimeout.
	CreateTimeout time.Duration
}

// QP is a queue pair's ibv_qp_init_attr.
type QP struct {
	Type          QPType
	MaxSendWR     int
	MaxRecvWR     int
	MaxSendSGE    int
	MaxRecvSGE    int
	MaxInlineData int
	SQSigAll      bool
}

// Accept is a listener's rdma_accept parameters.
type Accept struct {
	// ResponderResources and InitiatorDepth are FromDevice when left out.
	ResponderResources int
	InitiatorDepth     int
	PrivateData        []byte
	RejectPrivateData  []byte
	MaxConnections     int // 0 means no limit
	Echo               bool
}

// Connect is an endpoint's rdma_connect parameters.
type Connect struct {
	// ResponderResources and InitiatorDepth are FromDevice when left out.
	ResponderResources int
	InitiatorDepth     int
	RetryCount         int
	RNRRetryCount      int
	PrivateData        []byte
	Timeout            time.Duration
}

// Reconnect bounds the exponential backoff between reconnection attempts.
type Reconnect struct {
	MinBackoff, MaxBackoff time.Duration
}

// Probe is a data-path round trip toward an echoing listener (or a host
// running `rping -s`, in mode "rping").
type Probe struct {
	Interval time.Duration
	Size     int
	Timeout  time.Duration
	Mode     string // ProbeSend, ProbeWrite, ProbeRead or ProbeRping
}

// Variable is a variable block and its value.
type Variable struct {
	Name        string
	Type        cty.Type // cty.DynamicPseudoType when unconstrained
	Default     cty.Value
	Description string
	Sensitive   bool
	Value       cty.Value
	DeclRange   hcl.Range

	validations []*variableValidation
	errored     bool // its value was missing or invalid (reported)
	// untyped: the block has no type argument, so that a value from the
	// command line or the environment is a string, as in Terraform (with
	// type = any it is parsed as an expression).
	untyped bool
	// defaults are the optional(type, default) attributes' defaults.
	defaults *typeexpr.Defaults
	// notNullable: nullable = false; a null value takes the default, or
	// is an error.
	notNullable bool
}

type variableValidation struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
}

// Output is an output block and its value (which may be unknown).
type Output struct {
	Name        string
	Value       cty.Value
	Description string
	Sensitive   bool
	DeclRange   hcl.Range
	// DependsOn are the blocks the value references, directly or through
	// local values.
	DependsOn []addrs.Resource
	// Preconditions are checked when the value is: when loading, those
	// whose values are known then (see checkOutputPreconditions).
	Preconditions []*Condition

	expr      hcl.Expression
	dependsOn []hcl.Traversal
	// marked: the value was sensitive (see checkSensitiveOutputs); Value
	// itself carries no marks.
	marked bool
}

// EvalWith is Eval with the objects valueOf knows (the state's, in the
// console) in place of their configured values, whose computed attributes
// are unknown until apply. Its references are checked first, as the
// configuration's are: an undeclared variable, local value or block is
// an error that try() cannot hide, as in Terraform.
func (c *Config) EvalWith(expr hcl.Expression, valueOf func(addrs.Instance) (cty.Value, bool)) (cty.Value, hcl.Diagnostics) {
	if diags := c.checkRefs(expr); diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	// An object valueOf does not know is its configured value, with what
	// comes from sensitive values marked, as the state's are: the console
	// shows them as (sensitive value).
	marked := func(a addrs.Instance) (cty.Value, bool) {
		if v, ok := valueOf(a); ok {
			return v, true
		}
		if inst := c.Instances[a]; inst != nil && len(inst.Sensitive) > 0 {
			return markSensitive(inst.Value, inst.Sensitive), true
		}
		return cty.NilVal, false
	}
	return c.evalIn(expr, c.contextWith(expr.Variables(), marked))
}

// checkRefs types expr's references against the configuration's
// declarations, outside any block (no count or each).
func (c *Config) checkRefs(expr hcl.Expression) hcl.Diagnostics {
	d := &declarations{variables: c.Variables, locals: make(map[string]*hcl.Attribute, len(c.Locals)), resources: c.Resources, agents: c.agentBlocks}
	for name := range c.Locals {
		d.locals[name] = nil
	}
	_, diags := d.collectRefs([]hcl.Expression{expr}, "")
	return diags
}

// MarkSensitive marks the values at paths of v sensitive, as values
// derived from a sensitive variable are: the console shows them as
// (sensitive value).
func MarkSensitive(v cty.Value, paths []cty.Path) cty.Value { return markSensitive(v, paths) }
