package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// What the agent says of its objects (a status, an error that quotes a
// peer's reject reason) reaches the plan escaped, with colour on or off.
func TestHumanEscapesTheAgentsWords(t *testing.T) {
	const osc = "\x1b]0;owned\x07"
	p := plan(t, load(t, base64Config), nil, planner.Options{})
	for _, c := range p.Changes {
		if c.Addr.Kind == addrs.Endpoint {
			c.Action, c.Reason = planner.DeleteThenCreate, planner.ReasonFailed
			c.LiveStatus, c.LiveError = "rejected"+osc, "rdma_connect: ECONNREFUSED: go away"+osc
		}
	}
	gone := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "gone"}}
	p.Drift = append(p.Drift,
		planner.Drift{Addr: gone, Before: cty.EmptyObjectVal, Status: "established" + osc},
		planner.Drift{Addr: gone, Before: cty.EmptyObjectVal, After: cty.EmptyObjectVal, Status: "degraded\u202e"})
	p.Deposed = append(p.Deposed, planner.Deposed{Addr: gone, Handle: "h", Token: "t", Pending: true, Failed: "error: rdma_connect: go away" + osc})
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		Human(&b, p, color)
		out := b.String()
		if !color && strings.ContainsAny(out, "\x1b\x07\u009b\u202e") {
			t.Errorf("the plan holds a control character:\n%q", out)
		}
		if color && (strings.Contains(out, osc) || strings.Contains(out, "\u202e")) {
			t.Errorf("the coloured plan holds the agent's escape sequence:\n%q", out)
		}
		for _, want := range []string{
			`(because the agent reports it rejected\x1b]0;owned\a (rdma_connect: ECONNREFUSED: go away\x1b]0;owned\a)`,
			`another object at this address, established\x1b]0;owned\a,`,
			`the agent reports it degraded\u202e`,
			`reports it failed (error: rdma_connect: go away\x1b]0;owned\a)`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the plan (colour %v) lacks %s:\n%s", color, want, out)
			}
		}
	}
}
