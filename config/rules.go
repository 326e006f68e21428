package config

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// checker decodes an evaluated object into Go values, reporting each
// value that breaks a rule at the expression that produced it.
type checker struct {
	diags hcl.Diagnostics
	ctx   *hcl.EvalContext // the instance's, to show the values involved
}

func (c *checker) errorf(rng hcl.Range, summary, format string, args ...any) {
	c.diags = append(c.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
}

// attrErrorf reports a problem with attribute name of t, pointing at its
// expression and showing the values it was computed from.
func (c *checker) attrErrorf(t *bodyTemplate, name, summary, format string, args ...any) {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: t.attrRange(name).Ptr()}
	if a := t.attr(name); a != nil && c.ctx != nil {
		d.Expression, d.EvalContext = a.Expr, c.ctx
	}
	c.diags = append(c.diags, d)
}

// valueErrorf is attrErrorf for a detail that shows the values of
// attributes names (the first is the one reported): when one of them is
// sensitive, the diagnostic says redacted instead.
func (c *checker) valueErrorf(t *bodyTemplate, names []string, summary, redacted, format string, args ...any) {
	c.attrErrorf(t, names[0], summary, format, args...)
	d := c.diags[len(c.diags)-1]
	sd := &sensitiveDetail{redacted: redacted}
	for _, n := range names {
		if a := t.attr(n); a != nil {
			sd.exprs = append(sd.exprs, a.Expr)
		}
	}
	d.Extra = sd
	if sd.shows(c.ctx, nil) {
		d.Detail = redacted
	}
}

// minCreateTimeout is the shortest timeouts.create that does not draw a
// warning: it bounds the wait for ESTABLISHED after rdma_connect, and the
// CM's request and reply take milliseconds, more under load or Soft-RoCE,
// so a shorter bound fails creates whose peer answers.
const minCreateTimeout = 100 * time.Millisecond

// position is r's start as diagnostics print it, file:line:col.
func position(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// minProbeInterval is the shortest probe interval: every endpoint probes
// on its own, and probes more often than that would load the data path
// more than they check it.
const minProbeInterval = time.Millisecond

// intIn reads a whole number in [lo, hi]; unknown or null gives 0.
func (c *checker) intIn(obj cty.Value, t *bodyTemplate, name string, lo, hi int64, summary, why string) int {
	v := obj.GetAttr(name)
	if !v.IsKnown() || v.IsNull() {
		return 0
	}
	var n int64
	if i := t.schema.attrIndex(name); i >= 0 && t.attrs[i].attr == nil && t.schema.Attributes[i].hasDefaultInt {
		n = t.schema.Attributes[i].defaultInt // omitted: v is the default
	} else {
		bf := v.AsBigFloat()
		var acc big.Accuracy
		n, acc = bf.Int64()
		switch {
		case !bf.IsInt():
			c.valueErrorf(t, []string{name}, summary, fmt.Sprintf("%s must be a whole number; got %s.", name, sensitiveValue),
				"%s must be a whole number; got %s.", name, bf.Text('g', -1))
			return 0
		case acc != big.Exact: // whole, beyond int64
			c.valueErrorf(t, []string{name}, summary, fmt.Sprintf("%s must be from %d to %d%s; got %s.", name, lo, hi, why, sensitiveValue),
				"%s must be from %d to %d%s; got %s.", name, lo, hi, why, bf.Text('g', -1))
			return 0
		}
	}
	if n < lo || n > hi {
		c.valueErrorf(t, []string{name}, summary, fmt.Sprintf("%s must be from %d to %d%s; got %s.", name, lo, hi, why, sensitiveValue),
			"%s must be from %d to %d%s; got %d.", name, lo, hi, why, n)
		return 0
	}
	return int(n)
}

func (c *checker) str(obj cty.Value, name string) string {
	v := obj.GetAttr(name)
	if !v.IsKnown() || v.IsNull() {
		return ""
	}
	return v.AsString()
}

func (c *checker) boolean(obj cty.Value, name string) bool {
	v := obj.GetAttr(name)
	return v.IsKnown() && !v.IsNull() && v.True()
}

func (c *checker) duration(obj cty.Value, t *bodyTemplate, name string) time.Duration {
	if v := obj.GetAttr(name); !v.IsKnown() || v.IsNull() {
		return 0
	}
	s := c.str(obj, name) // "" too is not a duration
	d, diags := parseDuration(s, t.attrRange(name), false)
	if diags.HasErrors() {
		c.valueErrorf(t, []string{name}, diags[0].Summary,
			fmt.Sprintf("%s is not a positive duration with a unit, such as \"2s\"; its value is sensitive, so it is not shown.", name),
			"%s", diags[0].Detail)
	}
	return d
}

func (c *checker) oneOf(obj cty.Value, t *bodyTemplate, name, summary string, allowed ...string) string {
	s := c.str(obj, name)
	if s != "" && !contains(allowed, s) {
		c.valueErrorf(t, []string{name}, summary, fmt.Sprintf("%s must be %s; got %s.", name, quoteOr(allowed), sensitiveValue),
			"%s must be %s; got %q.%s", name, quoteOr(allowed), s, DidYouMean(s, allowed))
		return ""
	}
	return s
}

func quoteOr(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (c *checker) address(obj cty.Value, t *bodyTemplate, name string) string {
	s := c.str(obj, name)
	if v := obj.GetAttr(name); s == "" && v.IsKnown() && !v.IsNull() {
		c.valueErrorf(t, []string{name}, "Invalid address", fmt.Sprintf("%s must not be empty.", name),
			"%s must not be empty: give an IPv4 or IPv6 address or a host name (0.0.0.0 or :: for a listener on every address).", name)
		return s
	}
	if s != "" && !validHost(s) {
		c.valueErrorf(t, []string{name}, "Invalid address", fmt.Sprintf("%s must be an IPv4 or IPv6 address or a host name; got %s.", name, sensitiveValue),
			"%s must be an IPv4 or IPv6 address or a host name; got %q.", name, s)
	}
	if ip, err := netip.ParseAddr(s); err == nil && ip.Is4In6() {
		// The kernel's RDMA CM takes it for an IPv6 address, which no
		// interface has (as rping -a ::ffff:10.0.0.1 finds).
		c.valueErrorf(t, []string{name}, "IPv4-mapped address",
			fmt.Sprintf("%s is an IPv4-mapped IPv6 address, which the kernel's RDMA CM does not route (rdma_resolve_addr fails with ENETUNREACH, rdma_bind_addr with EADDRNOTAVAIL): write the IPv4 address.", name),
			"%s = %q is an IPv4-mapped IPv6 address, which the kernel's RDMA CM does not route (rdma_resolve_addr fails with ENETUNREACH, rdma_bind_addr with EADDRNOTAVAIL): write %q.", name, s, ip.Unmap().String())
	}
	if ip, err := netip.ParseAddr(s); err == nil && (ip.IsMulticast() || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})) {
		// rdma_bind_addr and rdma_resolve_addr take one host's address;
		// a group is joined with rdma_join_multicast, which rdmaform does
		// not do.
		c.valueErrorf(t, []string{name}, "Not a host's address",
			fmt.Sprintf("%s is a multicast or broadcast address: listeners and endpoints connect one host to another, which no group address can (rdma_bind_addr and rdma_resolve_addr would fail).", name),
			"%s = %q is a multicast or broadcast address: listeners and endpoints connect one host to another, which no group address can (rdma_bind_addr and rdma_resolve_addr would fail).", name, s)
	}
	if ip, err := netip.ParseAddr(s); err == nil && ip.Is6() && ip.Zone() == "" && (ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast()) {
		// The kernel cannot tell which link is meant: rdma_bind_addr and
		// rdma_resolve_addr fail with EINVAL.
		c.valueErrorf(t, []string{name}, "Link-local address without a zone",
			fmt.Sprintf("%s is an IPv6 link-local address without its interface; rdma_bind_addr and rdma_resolve_addr would fail with EINVAL. Add the interface, as in fe80::1%%eth0.", name),
			"%s = %q is an IPv6 link-local address: name the interface it is on, as in \"%s%%IFACE\" (for Soft-RoCE, the rxe device's netdev); without it rdma_bind_addr and rdma_resolve_addr fail with EINVAL.", name, s, s)
	}
	return s
}

// validHost accepts an IP literal (with an optional IPv6 zone) or an RFC
// 1123 host name, whose last label is not all digits (10.0.0.300 is a
// mistyped address, not a name).
func validHost(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	if len(s) > 253 || strings.ContainsAny(s, ":[]") {
		return false
	}
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return false
	}
	for _, label := range labels {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// pd is the pd attribute, a protection domain's id: a reference to
// another of a protection domain's attributes (its device, say) is a
// mistake the agent would only find at apply.
func (c *checker) pd(obj cty.Value, t *bodyTemplate) string {
	if a := t.attr("pd"); a != nil {
		for _, tr := range a.Expr.Variables() {
			if tr.RootName() != string(addrs.ProtectionDomain) || len(tr) < 3 {
				continue
			}
			name, _ := tr[1].(hcl.TraverseAttr)
			attr, ok := tr[len(tr)-1].(hcl.TraverseAttr)
			if ok && attr.Name != "id" {
				c.attrErrorf(t, "pd", "Not a protection domain's id",
					"pd takes a protection domain's id, protection_domain.%s.id, not its %s.", name.Name, attr.Name)
			}
		}
	}
	return c.str(obj, "pd")
}

// privateData decodes the private data of attribute name, given either as
// text (name, sent as its UTF-8 bytes) or as base64 (name_base64, as
// Terraform's content_base64: an HCL string holds Unicode text, so a binary
// header with bytes that are not UTF-8 can only be written so), and checks
// its size against librdmacm's limit.
func (c *checker) privateData(obj cty.Value, t *bodyTemplate, name string, ps PortSpace, qp QPType, dir Direction) []byte {
	b64 := name + "_base64"
	text, enc := obj.GetAttr(name), obj.GetAttr(b64)
	// Only two known, non-null values conflict: an unknown one (a variable
	// validate has no value for) may yet be null, as null is "not set".
	if text.IsKnown() && !text.IsNull() && enc.IsKnown() && !enc.IsNull() {
		c.attrErrorf(t, b64, "Conflicting configuration arguments",
			"%s and %s (at %s) are both set; they are two forms of the same private data, so set one: %s for text, %s for bytes that are not UTF-8.",
			b64, name, position(t.attrRange(name)), name, b64)
		return nil
	}
	var data []byte
	attr, what := name, "is"
	switch {
	case text.IsKnown() && !text.IsNull():
		data = []byte(text.AsString())
	case enc.IsKnown() && !enc.IsNull():
		var err error
		if data, err = base64.StdEncoding.DecodeString(enc.AsString()); err != nil {
			// err says where the input goes wrong, not what it holds: it
			// shows nothing of a sensitive value.
			c.attrErrorf(t, b64, "Invalid base64",
				"%s is not valid base64 (the standard alphabet with = padding, as base64encode and the base64 command write it): %v.", b64, err)
			return nil
		}
		attr, what = b64, "decodes to"
	}
	if len(data) == 0 {
		return nil
	}
	if ps != "" && qp != "" {
		if limit := PrivateDataLimit(ps, qp, dir); len(data) > limit {
			kind := "connection"
			if Datagram(ps, qp) || qp == QPTypeUD {
				kind = "datagram (SIDR)"
			}
			c.attrErrorf(t, attr, "Private data too long",
				"%s %s %d bytes; librdmacm carries at most %d bytes of private data in a %s %s on the %s port space.",
				attr, what, len(data), limit, kind, map[Direction]string{DirConnect: "request", DirAccept: "reply", DirReject: "rejection"}[dir], ps)
		}
	}
	return data
}

// qp decodes a qp block and checks its caps and its fit to the port space.
func (c *checker) qp(obj cty.Value, t *bodyTemplate, ps PortSpace) *QP {
	v := obj.GetAttr("qp")
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	qt := t.child("qp")
	q := &QP{
		Type:          QPType(c.oneOf(v, qt, "type", "Invalid QP type", "rc", "uc", "ud")),
		MaxSendWR:     c.intIn(v, qt, "max_send_wr", 1, maxWRStatic, "Invalid QP capacity", " (no device we know queues more work requests; -device-check compares with the device's max_qp_wr)"),
		MaxRecvWR:     c.intIn(v, qt, "max_recv_wr", 1, maxWRStatic, "Invalid QP capacity", " (no device we know queues more work requests; -device-check compares with the device's max_qp_wr)"),
		MaxSendSGE:    c.intIn(v, qt, "max_send_sge", 1, maxSGEStatic, "Invalid QP capacity", " (no device takes more scatter/gather entries; -device-check compares with the device's max_sge)"),
		MaxRecvSGE:    c.intIn(v, qt, "max_recv_sge", 1, maxSGEStatic, "Invalid QP capacity", " (no device takes more scatter/gather entries; -device-check compares with the device's max_sge)"),
		MaxInlineData: c.intIn(v, qt, "max_inline_data", 0, maxInlineStatic, "Inline data too large", " bytes, the most a send work request can carry inline on any known device"),
		SQSigAll:      c.boolean(v, "sq_sig_all"),
	}
	if q.Type != "" && ps != "" {
		fits := qpTypesOf[ps]
		if !contains(fits, string(q.Type)) {
			c.attrErrorf(qt, "type", "QP type does not fit the port space",
				"A %q QP cannot be used on the %q port space, which carries %s QPs only.", q.Type, ps, strings.ToUpper(strings.Join(fits, ", ")))
		}
	}
	return q
}

// qpTypesOf lists the QP types each port space carries.
var qpTypesOf = map[PortSpace][]string{PortSpaceTCP: {"rc"}, PortSpaceUDP: {"ud"}, PortSpaceIPoIB: {"ud"}, PortSpaceIB: {"rc", "uc", "ud"}}

func (c *checker) portSpace(obj cty.Value, t *bodyTemplate) PortSpace {
	return PortSpace(c.oneOf(obj, t, "port_space", "Invalid port space", "tcp", "udp", "ib", "ipoib"))
}

func (c *checker) port(obj cty.Value, t *bodyTemplate) int {
	return c.intIn(obj, t, "port", 1, 65535, "Invalid port", "")
}

// decodeInstance fills inst's typed struct from inst.Value.
func decodeInstance(kind addrs.Kind, t *bodyTemplate, inst *Instance, ctx *hcl.EvalContext) hcl.Diagnostics {
	c := &checker{ctx: ctx}
	v := inst.Value
	switch kind {
	case addrs.ProtectionDomain:
		inst.ProtectionDomain = &ProtectionDomain{Device: c.str(v, "device")}
		if dv := v.GetAttr("device"); dv.IsKnown() && !dv.IsNull() && inst.ProtectionDomain.Device == "" {
			c.attrErrorf(t, "device", "Invalid device", "device must name an RDMA device, such as \"rxe0\".")
		}
	case addrs.Listener:
		l := &Listener{
			Address:   c.address(v, t, "address"),
			Port:      c.port(v, t),
			PortSpace: c.portSpace(v, t),
			Backlog:   c.intIn(v, t, "backlog", 1, 65535, "Invalid backlog", " pending connection requests"),
			PD:        c.pd(v, t),
		}
		if l.PortSpace != "" {
			v = withImpliedQP(v, echoes(v), l.PortSpace)
			inst.Value = v
		}
		l.QP = c.qp(v, t, l.PortSpace)
		qt := NaturalQPType(l.PortSpace) // "" below: the qp block's type is not known yet
		if l.QP != nil {
			qt = l.QP.Type
		}
		l.Options = c.options(v, t, qt, l.Address)
		l.SRQ = c.srq(v, t, l.QP, l.PortSpace)
		if a := v.GetAttr("accept"); a.IsKnown() && !a.IsNull() {
			at := t.child("accept")
			l.Accept = Accept{
				ResponderResources: c.rdAtoms(a, at, "responder_resources", "Invalid accept parameter"),
				InitiatorDepth:     c.rdAtoms(a, at, "initiator_depth", "Invalid accept parameter"),
				PrivateData:        c.privateData(a, at, "private_data", l.PortSpace, qt, DirAccept),
				RejectPrivateData:  c.privateData(a, at, "reject_private_data", l.PortSpace, qt, DirReject),
				MaxConnections:     c.intIn(a, at, "max_connections", 0, 1<<20, "Invalid accept parameter", " (0 for no limit)"),
				Echo:               c.boolean(a, "echo"),
			}
			if Datagram(l.PortSpace, qt) {
				switch {
				case at.attr("max_connections") == nil:
					// The default limits connections, which it makes none of.
					l.Accept.MaxConnections = 0
					inst.Value = withAcceptAttr(v, "max_connections", cty.NullVal(cty.Number))
				case l.Accept.MaxConnections > 0:
					c.attrErrorf(at, "max_connections", "No connections to limit",
						"max_connections limits the connections a listener holds; a datagram (UD) listener on the %s port space answers SIDR requests without making connections, so it has none to limit. Remove max_connections.", l.PortSpace)
				}
			}
			if l.Accept.Echo && (l.QP == nil || !probing(l.QP.Type)) {
				c.attrErrorf(at, "echo", "Echo needs an RC or UD queue pair",
					"echo answers probes on accepted RC connections, or on a UD listener's own QP, so the listener needs a qp block of type \"rc\" or \"ud\"%s.", addQPBlock(l.QP, l.PortSpace))
			}
		}
		inst.Listener = l
	case addrs.Endpoint:
		e := &Endpoint{
			Address:       c.address(v, t, "address"),
			Port:          c.port(v, t),
			SourceAddress: c.address(v, t, "source_address"),
			PortSpace:     c.portSpace(v, t),
			PD:            c.pd(v, t),
		}
		if dst, err := netip.ParseAddr(e.Address); err == nil {
			if src, err := netip.ParseAddr(e.SourceAddress); err == nil && dst.Unmap().Is4() != src.Unmap().Is4() {
				c.valueErrorf(t, []string{"source_address", "address"}, "Address family mismatch",
					"source_address and address are not of the same family (IPv4 and IPv6); rdma_resolve_addr would fail with EINVAL. (Their values are sensitive, so they are not shown.)",
					"source_address %s and address %s are not of the same family (IPv4 and IPv6); rdma_resolve_addr would fail with EINVAL.", e.SourceAddress, e.Address)
			}
		}
		if e.PortSpace != "" {
			v = withImpliedQP(v, probes(v), e.PortSpace)
			inst.Value = v
		}
		e.QP = c.qp(v, t, e.PortSpace)
		qt := NaturalQPType(e.PortSpace) // "" below: the qp block's type is not known yet
		if e.QP != nil {
			qt = e.QP.Type
		}
		e.Options = c.options(v, t, qt, "")
		if cv := v.GetAttr("connect"); cv.IsKnown() && !cv.IsNull() {
			ct := t.child("connect")
			e.Connect = Connect{
				ResponderResources: c.rdAtoms(cv, ct, "responder_resources", "Invalid connect parameter"),
				InitiatorDepth:     c.rdAtoms(cv, ct, "initiator_depth", "Invalid connect parameter"),
				RetryCount:         c.intIn(cv, ct, "retry_count", 0, 7, "Invalid retry count", " (a 3-bit field of the connection request)"),
				RNRRetryCount:      c.intIn(cv, ct, "rnr_retry_count", 0, 7, "Invalid retry count", " (a 3-bit field of the connection request; 7 means retry forever)"),
				PrivateData:        c.privateData(cv, ct, "private_data", e.PortSpace, qt, DirConnect),
				Timeout:            c.duration(cv, ct, "timeout"),
			}
			// rdma_resolve_addr and rdma_resolve_route take the timeout in
			// milliseconds, as a C int.
			if d := e.Connect.Timeout; d != 0 && (d < time.Millisecond || d > math.MaxInt32*time.Millisecond) {
				c.attrErrorf(ct, "timeout", "Invalid timeout",
					"timeout must be from 1ms to %v (rdma_resolve_addr takes milliseconds in a C int); got %v.", math.MaxInt32*time.Millisecond, d)
			}
		}
		if rv := v.GetAttr("reconnect"); rv.IsKnown() && !rv.IsNull() {
			rt := t.child("reconnect")
			e.Reconnect = &Reconnect{MinBackoff: c.duration(rv, rt, "min_backoff"), MaxBackoff: c.duration(rv, rt, "max_backoff")}
			if e.Reconnect.MaxBackoff != 0 && e.Reconnect.MinBackoff > e.Reconnect.MaxBackoff {
				c.valueErrorf(rt, []string{"max_backoff", "min_backoff"}, "Invalid backoff",
					"max_backoff must not be shorter than min_backoff. (Their values are sensitive, so they are not shown.)",
					"max_backoff (%s) must not be shorter than min_backoff (%s).", e.Reconnect.MaxBackoff, e.Reconnect.MinBackoff)
			}
		}
		if pv := v.GetAttr("probe"); pv.IsKnown() && !pv.IsNull() {
			pt := t.child("probe")
			e.Probe = &Probe{
				Interval: c.duration(pv, pt, "interval"),
				Size:     c.intIn(pv, pt, "size", 1, MaxProbeSize, "Invalid probe size", " bytes (the agent's probe buffers)"),
				Timeout:  c.duration(pv, pt, "timeout"),
				Mode:     c.probeMode(v, pv, pt),
			}
			if i := e.Probe.Interval; i > 0 && i < minProbeInterval {
				c.valueErrorf(pt, []string{"interval"}, "Probe interval too short",
					fmt.Sprintf("probe.interval must be at least %v. (Its value is sensitive, so it is not shown.)", minProbeInterval),
					"probe.interval must be at least %v (got %v): a probe is a round trip over the data path, and every endpoint sends its own.", minProbeInterval, i)
			}
			if e.QP == nil || !probing(e.QP.Type) {
				c.errorf(pt.def, "Probe needs an RC or UD queue pair",
					"A probe is a round trip over the endpoint's QP toward an echoing listener, so the endpoint needs a qp block of type \"rc\" or \"ud\"%s.", addQPBlock(e.QP, e.PortSpace))
			} else if m := e.Probe.Mode; m != "" && m != ProbeSend && effectiveQPType(e.QP.Type, e.PortSpace) == QPTypeUD {
				c.errorf(pt.attrRange("mode"), "Probe mode needs an RC queue pair",
					"A probe of mode %q uses RDMA WRITE or READ, which a UD queue pair cannot do: use mode \"send\" on a UD endpoint, or a qp of type \"rc\".", m)
			}
		}
		if tv := v.GetAttr("timeouts"); tv.IsKnown() && !tv.IsNull() {
			tt := t.child("timeouts")
			e.CreateTimeout = c.duration(tv, tt, "create")
			if d := e.CreateTimeout; d > 0 && d < minCreateTimeout {
				// Valid, and it may be meant (a test of the failure), but
				// more likely a slip for seconds: warn rather than refuse.
				c.valueErrorf(tt, []string{"create"}, "Create timeout shorter than a connect",
					fmt.Sprintf("timeouts.create is under %v (its value is sensitive, so it is not shown): it bounds the wait for ESTABLISHED after rdma_connect, which can take longer (the CM's request and reply take milliseconds, more under load or on Soft-RoCE), so the create may fail although the peer answers. The default is %s.", minCreateTimeout, DefaultCreateTimeout),
					"timeouts.create = %q is under %v: it bounds the wait for ESTABLISHED after rdma_connect, which can take longer (the CM's request and reply take milliseconds, more under load or on Soft-RoCE), so the create may fail although the peer answers. The default is %s.", d, minCreateTimeout, DefaultCreateTimeout)
				c.diags[len(c.diags)-1].Severity = hcl.DiagWarning
			}
		}
		inst.Endpoint = e
	}
	return c.diags
}

// checkListenerAddresses reports two listener instances on the same
// agent with the same address, port and port space. Listeners on
// different agents bind on different hosts, so they may share them.
func checkListenerAddresses(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*Instance{}
	var listeners []*Instance
	for _, inst := range cfg.Instances {
		if inst.Listener != nil {
			listeners = append(listeners, inst)
		}
	}
	sort.Slice(listeners, func(a, b int) bool { return listeners[a].Addr.Less(listeners[b].Addr) })
	for _, inst := range listeners {
		l := inst.Listener
		if l == nil || !inst.Known("address") || !inst.Known("port") || !inst.Known("port_space") || l.Port == 0 || l.PortSpace == "" {
			continue
		}
		host := l.Address
		if ip, err := netip.ParseAddr(host); err == nil {
			host = ip.String() // fd77:0::1 and FD77::1 are fd77::1
		}
		key := fmt.Sprintf("%s|%s|%d|%s", inst.Agent, host, l.Port, l.PortSpace)
		if prev, dup := seen[key]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate listener address",
				Detail: fmt.Sprintf("%s and %s (declared at %s) both listen on %s port %d (%s)%s; only one can bind it.",
					inst.Addr, prev.Addr, prev.Resource.DeclRange, l.Address, l.Port, l.PortSpace, onAgent(inst.Agent)),
				Subject: inst.Resource.body.attrRange("port").Ptr(),
				Extra: &sensitiveDetail{keys: []string{inst.Resource.key, prev.Resource.key},
					redacted: fmt.Sprintf("%s and %s (declared at %s) both listen on the same address, port and port space (not shown: sensitive)%s; only one can bind it.",
						inst.Addr, prev.Addr, prev.Resource.DeclRange, onAgent(inst.Agent))}})
			continue
		}
		seen[key] = inst
	}
	return append(diags, checkWildcardListeners(listeners)...)
}

// checkWildcardListeners reports a listener on a port that a listener on
// every address of its family (0.0.0.0 or ::) of the same agent also
// listens on: rdma_cm refuses the second bind (EADDRINUSE), as the kernel
// does for sockets.
func checkWildcardListeners(sorted []*Instance) hcl.Diagnostics {
	type entry struct {
		inst *Instance
		ip   netip.Addr
	}
	groups := map[string][]entry{}
	var keys []string
	for _, inst := range sorted {
		l := inst.Listener
		if !inst.Known("address") || !inst.Known("port") || !inst.Known("port_space") || l.Port == 0 || l.PortSpace == "" {
			continue
		}
		ip, err := netip.ParseAddr(l.Address)
		if err != nil {
			continue
		}
		key := fmt.Sprintf("%s|%d|%s", inst.Agent, l.Port, l.PortSpace)
		if groups[key] == nil {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], entry{inst, ip})
	}
	var diags hcl.Diagnostics
	for _, key := range keys {
		g := groups[key]
		for i, a := range g {
			for _, b := range g[:i] { // report the later one, once
				// rdma_cm refuses a bind beside a wildcard of either family
				// (an IPv6 id covers IPv4 too); the same address twice is a
				// duplicate, reported as such.
				if !a.ip.IsUnspecified() && !b.ip.IsUnspecified() || a.ip == b.ip {
					continue
				}
				wildcard, l := b, a.inst.Listener
				if a.ip.IsUnspecified() {
					wildcard = a
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Listeners on the same port",
					Detail: fmt.Sprintf("%s and %s (declared at %s) both listen on port %d (%s)%s, and %s listens on every address (%s): the second cannot bind the port (rdma_bind_addr fails with EADDRNOTAVAIL).",
						a.inst.Addr, b.inst.Addr, b.inst.Resource.DeclRange, l.Port, l.PortSpace, onAgent(a.inst.Agent), wildcard.inst.Addr, wildcard.ip),
					Subject: a.inst.Resource.body.attrRange("port").Ptr()})
				break
			}
		}
	}
	return diags
}

// checkEndpointTargets reports endpoints toward a listener of this
// configuration that cannot serve them: one that listens in another port
// space (the connect would find no listener), or one that does not echo
// when the endpoint probes (every probe would be lost).
func checkEndpointTargets(cfg *Config) hcl.Diagnostics {
	type target struct {
		host string
		port int
	}
	norm := func(h string) string {
		if ip, err := netip.ParseAddr(h); err == nil {
			return ip.String()
		}
		return h
	}
	listeners := map[target][]*Instance{}
	for _, inst := range cfg.Instances {
		if l := inst.Listener; l != nil && inst.Known("address") && inst.Known("port") && inst.Known("port_space") && inst.Known("accept") {
			t := target{norm(l.Address), l.Port}
			listeners[t] = append(listeners[t], inst)
		}
	}
	if len(listeners) == 0 {
		return nil
	}
	// Endpoints may be many: the diagnostics are sorted, not they.
	var diags hcl.Diagnostics
	var reported []*Instance
	report := func(inst *Instance, d *hcl.Diagnostic) {
		reported = append(reported, inst)
		diags = append(diags, d)
	}
	for _, inst := range cfg.Instances {
		// Endpoints may be many: their typed values say enough (an
		// attribute not known yet is the zero value).
		e := inst.Endpoint
		if e == nil || e.Port == 0 || e.Address == "" || e.PortSpace == "" {
			continue
		}
		// Only a listener on the very address is this one's target: one
		// on 0.0.0.0 serves this host's addresses, and whether the
		// endpoint's is one of them (or a peer's) is not known here.
		host := e.Address
		if strings.Contains(host, ":") { // IPv6: written in more than one way
			if ip, err := netip.ParseAddr(host); err == nil {
				host = ip.String()
			}
		}
		there := listeners[target{host, e.Port}]
		if len(there) == 0 {
			continue
		}
		var l, other *Instance
		for _, cand := range there {
			if cand.Listener.PortSpace == e.PortSpace {
				l = cand
			}
			other = cand
		}
		switch {
		case l == nil:
			report(inst, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Port space mismatch",
				Detail: fmt.Sprintf("%s connects to port %d in port space %s, but %s listens there in port space %s: the connect would find no listener. Give both the same port_space.",
					inst.Addr, e.Port, e.PortSpace, other.Addr, other.Listener.PortSpace),
				Subject: inst.Resource.body.attrRange("port").Ptr()})
		case e.Probe != nil && !l.Listener.Accept.Echo && e.Probe.Mode != ProbeRping:
			report(inst, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Probe toward a listener that does not echo",
				Detail: fmt.Sprintf("%s probes %s, which does not echo: every probe would be lost and the endpoint stay degraded. Set accept { echo = true } on %s, or remove the probe block.",
					inst.Addr, l.Addr, l.Addr),
				Subject: inst.Resource.body.child("probe").def.Ptr()})
		case e.Probe != nil && e.Probe.Mode == ProbeRping:
			report(inst, rpingTowardListener(inst, l))
		}
	}
	sort.Sort(byInstance{reported, diags})
	return diags
}

// byInstance sorts diagnostics by the instances they are about.
type byInstance struct {
	insts []*Instance
	diags hcl.Diagnostics
}

func (b byInstance) Len() int           { return len(b.insts) }
func (b byInstance) Less(i, j int) bool { return b.insts[i].Addr.Less(b.insts[j].Addr) }
func (b byInstance) Swap(i, j int) {
	b.insts[i], b.insts[j] = b.insts[j], b.insts[i]
	b.diags[i], b.diags[j] = b.diags[j], b.diags[i]
}

// probing: echo and probes run over RC connections and UD QPs ("": the
// port space's type, rc or ud).
func probing(t QPType) bool { return t == "" || t == QPTypeRC || t == QPTypeUD }

// effectiveQPType is a qp block's type, or the port space's when the block
// gives none.
func effectiveQPType(t QPType, ps PortSpace) QPType {
	if t == "" {
		return NaturalQPType(ps)
	}
	return t
}

// addQPBlock says how to give a block without a QP the QP it needs.
func addQPBlock(qp *QP, ps PortSpace) string {
	if qp == nil {
		return fmt.Sprintf(": add \"qp {}\" (echo and probes use the QP, so it must be declared; in the %s port space its type is %s)", ps, NaturalQPType(ps))
	}
	return ""
}

// withAcceptAttr is a listener's value with one attribute of its accept
// block replaced.
func withAcceptAttr(listener cty.Value, name string, v cty.Value) cty.Value {
	acc := listener.GetAttr("accept")
	if !acc.IsKnown() || acc.IsNull() {
		return listener
	}
	am := acc.AsValueMap()
	am[name] = v
	lm := listener.AsValueMap()
	lm["accept"] = cty.ObjectVal(am)
	return cty.ObjectVal(lm)
}

// onAgent says which agent's host a rule is about: "" for the local
// agent, whose configurations name no agent.
func onAgent(agent string) string {
	if agent == "" {
		return ""
	}
	return " on " + agent
}
