package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/rdmacm/binds"
	"github.com/zclconf/go-cty/cty"
)

// HeldListener is a listener that the agent holds for another
// configuration, and what it binds.
type HeldListener struct {
	Name      string // the agent's name for it: listener.loop@a
	Address   string
	Port      int
	PortSpace PortSpace
	// Program is set when another program holds it, not the agent: the
	// kernel's resource tracking names it ("rping (pid 4242)", Name too).
	Program bool
}

// CheckHeldPorts reports each listener among insts that would bind an
// address and port that one of held binds in the same port space (see
// binds.Overlap). Apply would fail to create it, and, for a replacement,
// only after destroying the listener it replaces and its endpoints: the
// plan refuses instead, at the listener's port. Values not known until
// apply are skipped.
func CheckHeldPorts(insts []*Instance, held []HeldListener) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, inst := range insts {
		l := inst.Listener
		if l == nil || !inst.Known("address") || !inst.Known("port") || !inst.Known("port_space") || l.Address == "" || l.Port == 0 {
			continue
		}
		var holders []HeldListener
		for _, h := range held {
			if h.Port == l.Port && h.PortSpace == l.PortSpace && binds.Overlap(l.Address, h.Address) {
				holders = append(holders, h)
			}
		}
		if len(holders) > 0 {
			diags = append(diags, heldPortError(inst, holders))
		}
	}
	return diags
}

func heldPortError(inst *Instance, holders []HeldListener) *hcl.Diagnostic {
	l := inst.Listener
	whose := "which this agent holds for another configuration"
	if len(holders) > 1 {
		whose = "which this agent holds for other configurations"
	}
	advice := "choose another port, or destroy that listener first."
	summary := "Port held by another configuration"
	if programs(holders) {
		whose = "another program on the agent's host, not the agent (the kernel's RDMA resource tracking names it)"
		advice = "stop that program, or choose another port."
		summary = "Port held by another program"
	}
	var detail string
	if inst.IsSensitive(cty.GetAttrPath("address")) || inst.IsSensitive(cty.GetAttrPath("port")) || inst.IsSensitive(cty.GetAttrPath("port_space")) {
		names := make([]string, len(holders))
		for i, h := range holders {
			names[i] = h.Name
		}
		detail = fmt.Sprintf("%s: its address and port (not shown: sensitive) are held by %s, %s; %s", inst.Addr, joinAnd(names), whose, advice)
	} else {
		names := make([]string, len(holders))
		for i, h := range holders {
			names[i] = h.Name
			if h.Address != l.Address { // a wildcard, or the same address spelt otherwise
				names[i] += " (on " + hostPort(h.Address, h.Port) + ")"
			}
		}
		detail = fmt.Sprintf("%s: %s (%s) is held by %s, %s; %s", inst.Addr, hostPort(l.Address, l.Port), l.PortSpace, joinAnd(names), whose, advice)
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail,
		Subject: inst.Resource.body.attrRange("port").Ptr()}
}

// programs: every holder is another program (a mix is named as the
// agent's listeners are: the program is then one of the names).
func programs(holders []HeldListener) bool {
	for _, h := range holders {
		if !h.Program {
			return false
		}
	}
	return true
}

func hostPort(address string, port int) string {
	return net.JoinHostPort(address, strconv.Itoa(port))
}

// joinAnd joins names as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
