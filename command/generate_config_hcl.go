package command

import (
	"encoding/base64"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// generatedHeader opens a file plan -generate-config-out writes, as
// Terraform's does.
const generatedHeader = "# __generated__ by rdmaform\n# Please review these blocks and move them into your main configuration files.\n"

// generatedBlock is one import's block: what the agent holds, written as
// the configuration that makes it, attributes at their defaults left out.
type generatedBlock struct {
	addr addrs.Instance
	id   string
	spec apply.Spec
}

// generatedConfig formats the blocks as one file.
func generatedConfig(blocks []generatedBlock) []byte {
	f := hclwrite.NewEmptyFile()
	root := f.Body()
	for _, g := range blocks {
		root.AppendNewline()
		root.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: fmt.Appendf(nil, "# __generated__ by rdmaform from %q\n", g.id)}})
		b := root.AppendNewBlock(string(g.addr.Kind), []string{g.addr.Name}).Body()
		switch s := g.spec; {
		case s.ProtectionDomain != nil:
			b.SetAttributeValue("device", cty.StringVal(s.ProtectionDomain.Device))
		case s.Listener != nil:
			writeListener(b, s.Listener)
		case s.Endpoint != nil:
			writeEndpoint(b, s.Endpoint)
		}
	}
	return append([]byte(generatedHeader), hclwrite.Format(f.Bytes())...)
}

func writeListener(b *hclwrite.Body, l *config.Listener) {
	b.SetAttributeValue("address", cty.StringVal(l.Address))
	b.SetAttributeValue("port", cty.NumberIntVal(int64(l.Port)))
	setString(b, "port_space", string(l.PortSpace), config.DefaultPortSpace)
	setInt(b, "backlog", l.Backlog, config.DefaultBacklog)
	setString(b, "pd", l.PD, "")
	writeQP(b, l.QP)
	writeOptions(b, l.Options, true)
	if l.SRQ != nil {
		s := b.AppendNewBlock("srq", nil).Body()
		s.SetAttributeValue("max_recv_wr", cty.NumberIntVal(int64(l.SRQ.MaxRecvWR)))
		s.SetAttributeValue("max_recv_sge", cty.NumberIntVal(int64(l.SRQ.MaxRecvSGE)))
	}
	a := hclwrite.NewEmptyFile().Body()
	setRdAtoms(a, "responder_resources", l.Accept.ResponderResources)
	setRdAtoms(a, "initiator_depth", l.Accept.InitiatorDepth)
	setBytes(a, "private_data", l.Accept.PrivateData)
	setBytes(a, "reject_private_data", l.Accept.RejectPrivateData)
	setInt(a, "max_connections", l.Accept.MaxConnections, config.DefaultMaxConnections)
	if l.Accept.Echo {
		a.SetAttributeValue("echo", cty.True)
	}
	appendIfAny(b, "accept", a)
}

func writeEndpoint(b *hclwrite.Body, e *config.Endpoint) {
	b.SetAttributeValue("address", cty.StringVal(e.Address))
	b.SetAttributeValue("port", cty.NumberIntVal(int64(e.Port)))
	setString(b, "source_address", e.SourceAddress, "")
	setString(b, "port_space", string(e.PortSpace), config.DefaultPortSpace)
	setString(b, "pd", e.PD, "")
	writeQP(b, e.QP)
	writeOptions(b, e.Options, false)
	c := hclwrite.NewEmptyFile().Body()
	setRdAtoms(c, "responder_resources", e.Connect.ResponderResources)
	setRdAtoms(c, "initiator_depth", e.Connect.InitiatorDepth)
	setInt(c, "retry_count", e.Connect.RetryCount, config.DefaultRetryCount)
	setInt(c, "rnr_retry_count", e.Connect.RNRRetryCount, config.DefaultRNRRetryCount)
	setBytes(c, "private_data", e.Connect.PrivateData)
	setDuration(c, "timeout", e.Connect.Timeout, config.DefaultConnectTimeout)
	appendIfAny(b, "connect", c)
	if r := e.Reconnect; r != nil {
		rb := b.AppendNewBlock("reconnect", nil).Body()
		rb.SetAttributeValue("min_backoff", cty.StringVal(r.MinBackoff.String()))
		rb.SetAttributeValue("max_backoff", cty.StringVal(r.MaxBackoff.String()))
	}
	if p := e.Probe; p != nil {
		pb := b.AppendNewBlock("probe", nil).Body()
		pb.SetAttributeValue("interval", cty.StringVal(p.Interval.String()))
		pb.SetAttributeValue("size", cty.NumberIntVal(int64(p.Size)))
		if p.Timeout != 0 {
			pb.SetAttributeValue("timeout", cty.StringVal(p.Timeout.String()))
		}
		setString(pb, "mode", p.Mode, config.ProbeSend)
	}
	// 0 is the agent's word for the default: a written 30s is kept, so
	// that the spec is the agent's exactly.
	if e.CreateTimeout != 0 {
		b.AppendNewBlock("timeouts", nil).Body().SetAttributeValue("create", cty.StringVal(e.CreateTimeout.String()))
	}
}

// writeQP writes the qp block with every value: its type's default
// depends on the port space, and the block's presence matters.
func writeQP(b *hclwrite.Body, q *config.QP) {
	if q == nil {
		return
	}
	qb := b.AppendNewBlock("qp", nil).Body()
	qb.SetAttributeValue("type", cty.StringVal(string(q.Type)))
	qb.SetAttributeValue("max_send_wr", cty.NumberIntVal(int64(q.MaxSendWR)))
	qb.SetAttributeValue("max_recv_wr", cty.NumberIntVal(int64(q.MaxRecvWR)))
	qb.SetAttributeValue("max_send_sge", cty.NumberIntVal(int64(q.MaxSendSGE)))
	qb.SetAttributeValue("max_recv_sge", cty.NumberIntVal(int64(q.MaxRecvSGE)))
	setInt(qb, "max_inline_data", q.MaxInlineData, 0)
	if q.SQSigAll {
		qb.SetAttributeValue("sq_sig_all", cty.True)
	}
}

func writeOptions(b *hclwrite.Body, o *config.Options, listener bool) {
	if o == nil {
		return
	}
	ob := b.AppendNewBlock("options", nil).Body()
	if o.TypeOfService != nil {
		ob.SetAttributeValue("type_of_service", cty.NumberIntVal(int64(*o.TypeOfService)))
	}
	if o.AckTimeout != nil {
		ob.SetAttributeValue("ack_timeout", cty.NumberIntVal(int64(*o.AckTimeout)))
	}
	if o.ReuseAddress != nil {
		ob.SetAttributeValue("reuse_address", cty.BoolVal(*o.ReuseAddress))
	}
	if o.IPv6Only != nil && listener {
		ob.SetAttributeValue("ipv6_only", cty.BoolVal(*o.IPv6Only))
	}
}

// appendIfAny appends a block holding what body holds, if anything: the
// accept, connect and timeouts blocks at their defaults are left out.
func appendIfAny(b *hclwrite.Body, name string, body *hclwrite.Body) {
	if len(body.Attributes()) == 0 {
		return
	}
	nb := b.AppendNewBlock(name, nil).Body()
	nb.AppendUnstructuredTokens(body.BuildTokens(nil))
}

func setString(b *hclwrite.Body, name, v, def string) {
	if v != def {
		b.SetAttributeValue(name, cty.StringVal(v))
	}
}

func setInt(b *hclwrite.Body, name string, v, def int) {
	if v != def {
		b.SetAttributeValue(name, cty.NumberIntVal(int64(v)))
	}
}

func setRdAtoms(b *hclwrite.Body, name string, v int) {
	if v != config.FromDevice {
		b.SetAttributeValue(name, cty.NumberIntVal(int64(v)))
	}
}

func setDuration(b *hclwrite.Body, name string, d time.Duration, def string) {
	if dd, err := time.ParseDuration(def); err == nil && d == dd {
		return
	}
	b.SetAttributeValue(name, cty.StringVal(d.String()))
}

// setBytes writes private data as text when it is UTF-8, else as base64.
func setBytes(b *hclwrite.Body, name string, data []byte) {
	switch {
	case len(data) == 0:
	case utf8.Valid(data):
		b.SetAttributeValue(name, cty.StringVal(string(data)))
	default:
		b.SetAttributeValue(name+"_base64", cty.StringVal(base64.StdEncoding.EncodeToString(data)))
	}
}
