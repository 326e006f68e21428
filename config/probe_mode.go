package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Probe modes: what one probe of an endpoint is.
const (
	// ProbeSend is a SEND that an rdmaform listener with accept { echo =
	// true } sends back: the default.
	ProbeSend = "send"
	// ProbeWrite is an RDMA WRITE into the echoing listener's probe
	// memory; its round trip is the write's completion (for RC, the
	// peer's acknowledgement).
	ProbeWrite = "write"
	// ProbeRead is an RDMA READ of the echoing listener's probe memory,
	// checked against the pattern the listener keeps there.
	ProbeRead = "read"
	// ProbeRping is one ping of rping's exchange, as its client, with a
	// host running `rping -s` and no rdmaform.
	ProbeRping = "rping"
)

// ProbeModes are the probe modes, in the order the documentation gives.
var ProbeModes = []string{ProbeSend, ProbeWrite, ProbeRead, ProbeRping}

// probeMode reads and checks the probe block's mode against the endpoint
// v it probes from. One-sided probes need the connection to allow RDMA
// READs: the endpoint's own (mode "read") or the rping server's toward it
// (mode "rping").
func (c *checker) probeMode(v cty.Value, pv cty.Value, pt *bodyTemplate) string {
	mode := c.oneOf(pv, pt, "mode", "Invalid probe mode", ProbeModes...)
	switch mode {
	case ProbeRead:
		if zeroConnect(v, "initiator_depth") {
			c.errorf(pt.attrRange("mode"), "Probe mode needs RDMA READs",
				"A probe of mode \"read\" is an RDMA READ, which the connection allows only with connect.initiator_depth of 1 or more (it is 0 here): remove connect.initiator_depth (it then defaults to what the device allows) or set it to 1 or more.")
		}
	case ProbeRping:
		if zeroConnect(v, "responder_resources") {
			c.errorf(pt.attrRange("mode"), "Probe mode needs RDMA READs",
				"In rping's exchange the server RDMA READs the endpoint's ping buffer, which the connection allows only with connect.responder_resources of 1 or more (it is 0 here): remove connect.responder_resources (it then defaults to what the device allows) or set it to 1 or more.")
		}
	}
	return mode
}

// zeroConnect reports whether the endpoint v's connect block sets name to 0.
func zeroConnect(v cty.Value, name string) bool {
	cv := v.GetAttr("connect")
	if !cv.IsKnown() || cv.IsNull() {
		return false
	}
	a := cv.GetAttr(name)
	return a.IsKnown() && !a.IsNull() && a.Equals(cty.Zero).True()
}

// rpingTowardListener is the diagnostic of an endpoint whose rping probes
// go to a listener of the configuration: rdmaform listeners do not speak
// rping's exchange.
func rpingTowardListener(ep, l *Instance) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "rping probe toward an rdmaform listener",
		Detail: fmt.Sprintf("%s probes %s with mode \"rping\", which speaks rping's exchange to a host running `rping -s`; an rdmaform listener does not: every probe would be lost. Use mode \"send\", \"write\" or \"read\" toward %s.",
			ep.Addr, l.Addr, l.Addr),
		Subject: ep.Resource.body.child("probe").attrRange("mode").Ptr()}
}
