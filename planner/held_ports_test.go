package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// sharedAgent is an agent that holds this state's objects (under their
// agent handles) and, besides, the listeners of other configurations.
type sharedAgent struct {
	st     *state.State
	others []LiveListener
	asked  *int // Listeners calls
}

func (a sharedAgent) Live(context.Context) (map[string]LiveObject, error) {
	out := map[string]LiveObject{}
	if a.st != nil {
		for _, o := range a.st.Objects {
			out[AgentHandle(o)] = LiveObject{Token: o.Facts.CreateToken, Status: "established"}
		}
	}
	for _, l := range a.others {
		out[l.Handle] = LiveObject{Token: "theirs", Status: "listening"}
	}
	return out, nil
}

// Listeners serves the state's listeners as the configuration declared
// them (port 7471 on 10.77.0.1) and the others'.
func (a sharedAgent) Listeners(context.Context) ([]LiveListener, error) {
	*a.asked++
	var out []LiveListener
	if a.st != nil {
		for _, o := range a.st.Objects {
			if o.Addr.Kind == "listener" {
				out = append(out, LiveListener{Handle: AgentHandle(o), Address: "10.77.0.1", Port: 7471, PortSpace: "tcp"})
			}
		}
	}
	return append(out, a.others...), nil
}

const namespaceB = `
rdmaform {
  agent {
    namespace = "b"
  }
}
`

// appliedInB is loopback applied in namespace b: the agent holds its
// objects as ADDRESS@b.
func appliedInB(t *testing.T) *state.State {
	t.Helper()
	st := applied(t, mustPlan(t, load(t, namespaceB+loopback), nil, Options{}))
	for _, o := range st.Objects {
		o.Facts.AgentHandle = o.Addr.String() + "@b"
	}
	return st
}

func heldPortErrors(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Summary == "Port held by another configuration" {
			out = append(out, d)
		}
	}
	return out
}

// The audit's case: configuration b moves its listener to the port that
// configuration a's listener, on the same agent, listens on. The plan
// refuses at b's port rather than leaving apply to destroy b's listener
// and endpoints and then fail to bind.
func TestPlanRefusesAReplacementOnAPortAnotherConfigurationHolds(t *testing.T) {
	st := appliedInB(t)
	asked := 0
	agent := sharedAgent{st: st, asked: &asked, others: []LiveListener{{Handle: "listener.loop@a", Address: "10.77.0.1", Port: 7610, PortSpace: "tcp"}}}
	src := namespaceB + strings.Replace(loopback, "port    = 7471", "port    = 7610", 1)
	p, diags := Make(context.Background(), load(t, src), st, Options{Refresher: agent})
	if c := p.Change(mustAddr(t, "listener.loop")); c == nil || !c.Action.IsReplace() {
		t.Fatalf("the port change should replace the listener:\n%s", actions(p))
	}
	errs := heldPortErrors(diags)
	if len(errs) != 1 || !diags.HasErrors() {
		t.Fatalf("want one error, got:\n%s", diagText(diags))
	}
	want := "listener.loop: 10.77.0.1:7610 (tcp) is held by listener.loop@a, which this agent holds for another configuration; choose another port, or destroy that listener first."
	if errs[0].Detail != want {
		t.Errorf("detail:\n%s\nwant:\n%s", errs[0].Detail, want)
	}
	portLine := 1 + strings.Count(src[:strings.Index(src, "port    = 7610")], "\n")
	if s := errs[0].Subject; s == nil || s.Filename != "main.rdma.hcl" || s.Start.Line != portLine {
		t.Errorf("subject %v, want main.rdma.hcl:%d (the listener's port)", s, portLine)
	}
	if asked != 1 {
		t.Errorf("Listeners asked %d times, want 1", asked)
	}
}

// A listener's own replacement on its own port is no conflict: the agent
// holds the old one for this configuration, and apply destroys it first.
func TestPlanLetsAListenerBeReplacedOnItsOwnPort(t *testing.T) {
	st := appliedInB(t)
	asked := 0
	agent := sharedAgent{st: st, asked: &asked}
	p, diags := Make(context.Background(), load(t, namespaceB+loopback), st, Options{Refresher: agent, Replace: []addrs.Instance{mustAddr(t, "listener.loop")}})
	if c := p.Change(mustAddr(t, "listener.loop")); c == nil || !c.Action.IsReplace() {
		t.Fatalf("-replace should replace the listener:\n%s", actions(p))
	}
	if diags.HasErrors() || asked != 1 {
		t.Fatalf("asked %d times; diagnostics:\n%s", asked, diagText(diags))
	}
}

// A plan that creates no listener does not ask for the listeners: the
// no-change plan of 10,000 endpoints makes no second round trip.
func TestNoChangePlanDoesNotListTheListeners(t *testing.T) {
	st := appliedInB(t)
	asked := 0
	agent := sharedAgent{st: st, asked: &asked, others: []LiveListener{{Handle: "listener.loop@a", Address: "10.77.0.1", Port: 7471, PortSpace: "tcp"}}}
	p, diags := Make(context.Background(), load(t, namespaceB+loopback), st, Options{Refresher: agent})
	if p.HasChanges() || len(diags) != 0 || asked != 0 {
		t.Fatalf("changes %v, Listeners asked %d times, diagnostics:\n%s", p.HasChanges(), asked, diagText(diags))
	}
}

func TestHeldPortsAcrossAddressesFamiliesAndPortSpaces(t *testing.T) {
	for _, c := range []struct {
		name      string
		mine      string // the new listener's address
		portSpace string // the new listener's
		holder    LiveListener
		want      string // "" for no error
	}{
		{"same address", "10.77.0.1", "tcp", LiveListener{"listener.x@a", "10.77.0.1", 7610, "tcp", "", false},
			"listener.loop: 10.77.0.1:7610 (tcp) is held by listener.x@a, which"},
		{"same address spelt otherwise", "fd77::1", "tcp", LiveListener{"listener.x@a", "FD77:0::1", 7610, "tcp", "", false},
			"listener.loop: [fd77::1]:7610 (tcp) is held by listener.x@a (on [FD77:0::1]:7610), which"},
		{"holder on every address", "10.77.0.1", "tcp", LiveListener{"listener.any@a", "0.0.0.0", 7610, "tcp", "", false},
			"listener.loop: 10.77.0.1:7610 (tcp) is held by listener.any@a (on 0.0.0.0:7610), which"},
		{"mine on every address", "0.0.0.0", "tcp", LiveListener{"listener.x@a", "10.77.0.1", 7610, "tcp", "", false},
			"listener.loop: 0.0.0.0:7610 (tcp) is held by listener.x@a (on 10.77.0.1:7610), which"},
		{"IPv6 wildcard, IPv4 holder", "::", "tcp", LiveListener{"listener.x@a", "10.77.0.1", 7610, "tcp", "", false},
			"listener.loop: [::]:7610 (tcp) is held by listener.x@a (on 10.77.0.1:7610), which"},
		{"IPv4 wildcard holder, IPv6 address", "fd77::1", "tcp", LiveListener{"listener.any@a", "0.0.0.0", 7610, "tcp", "", false},
			"listener.loop: [fd77::1]:7610 (tcp) is held by listener.any@a (on 0.0.0.0:7610), which"},
		{"same port space, not tcp", "10.77.0.1", "udp", LiveListener{"listener.x@a", "10.77.0.1", 7610, "udp", "", false},
			"listener.loop: 10.77.0.1:7610 (udp) is held by listener.x@a, which"},
		{"another address", "10.77.0.1", "tcp", LiveListener{"listener.x@a", "10.77.0.2", 7610, "tcp", "", false}, ""},
		{"another family", "10.77.0.1", "tcp", LiveListener{"listener.x@a", "fd77::1", 7610, "tcp", "", false}, ""},
		{"another port", "10.77.0.1", "tcp", LiveListener{"listener.x@a", "10.77.0.1", 7611, "tcp", "", false}, ""},
		{"another port space", "10.77.0.1", "tcp", LiveListener{"listener.x@a", "10.77.0.1", 7610, "udp", "", false}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `
listener "loop" {
  address    = "` + c.mine + `"
  port       = 7610
  port_space = "` + c.portSpace + `"
}
`
			asked := 0
			// No state: a first plan creates the listener.
			_, diags := Make(context.Background(), load(t, src), nil, Options{Refresher: sharedAgent{asked: &asked, others: []LiveListener{c.holder}}})
			errs := heldPortErrors(diags)
			switch {
			case c.want == "" && len(diags) != 0:
				t.Fatalf("want no diagnostics, got:\n%s", diagText(diags))
			case c.want != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0].Detail, c.want)):
				t.Fatalf("want an error starting %q, got:\n%s", c.want, diagText(diags))
			case c.want != "" && (errs[0].Subject == nil || errs[0].Subject.Start.Line != 4):
				t.Fatalf("subject %v, want line 4 (the port)", errs[0].Subject)
			}
		})
	}
}

// Every holder is named; a sensitive address or port is not shown.
func TestHeldPortNamesEveryHolderAndHidesSensitiveValues(t *testing.T) {
	holders := []LiveListener{
		{Handle: "listener.a@a", Address: "10.77.0.1", Port: 7610, PortSpace: "tcp"},
		{Handle: "listener.b@b", Address: "fd77::1", Port: 7610, PortSpace: "tcp"},
	}
	asked := 0
	agent := sharedAgent{asked: &asked, others: holders}
	_, diags := Make(context.Background(), load(t, `
listener "any" {
  address = "::"
  port    = 7610
}
`), nil, Options{Refresher: agent})
	want := "listener.any: [::]:7610 (tcp) is held by listener.a@a (on 10.77.0.1:7610) and listener.b@b (on [fd77::1]:7610), which this agent holds for other configurations;"
	if errs := heldPortErrors(diags); len(errs) != 1 || !strings.HasPrefix(errs[0].Detail, want) {
		t.Fatalf("want %q, got:\n%s", want, diagText(diags))
	}

	_, diags = Make(context.Background(), load(t, `
variable "port" {
  default   = 7610
  sensitive = true
}

listener "any" {
  address = "::"
  port    = var.port
}
`), nil, Options{Refresher: agent})
	errs := heldPortErrors(diags)
	if len(errs) != 1 || strings.Contains(errs[0].Detail, "7610") || strings.Contains(errs[0].Detail, "10.77.0.1") ||
		!strings.Contains(errs[0].Detail, "listener.any: its address and port (not shown: sensitive) are held by listener.a@a and listener.b@b,") {
		t.Fatalf("sensitive port shown or holders not named:\n%s", diagText(diags))
	}
}

// A listener held under the very name the plan creates one as (a lost
// state, or another configuration without a namespace) is refused by
// name (see heldByAgent), with the advice to import it or to use a
// namespace, not as a port another configuration holds.
func TestHeldPortUnderTheSameNameIsRefusedByName(t *testing.T) {
	asked := 0
	agent := sharedAgent{asked: &asked, others: []LiveListener{{Handle: "listener.loop@b", Address: "10.77.0.1", Port: 7471, PortSpace: "tcp"}}}
	if _, diags := Make(context.Background(), load(t, namespaceB+loopback), nil, Options{Refresher: agent}); len(diags) != 1 || diags[0].Summary != "Object already held by the agent" || asked != 1 {
		t.Fatalf("asked %d times; diagnostics:\n%s", asked, diagText(diags))
	}
	agent.others[0].Handle = "listener.loop" // not b's name
	if _, diags := Make(context.Background(), load(t, namespaceB+loopback), nil, Options{Refresher: agent}); len(heldPortErrors(diags)) != 1 {
		t.Fatalf("want the port held by listener.loop, got:\n%s", diagText(diags))
	}
}

// A port another program holds (rping -s, from the kernel's resource
// tracking the agent reads) is refused by the plan naming the program.
func TestPlanRefusesAPortAnotherProgramHolds(t *testing.T) {
	asked := 0
	agent := sharedAgent{asked: &asked, others: []LiveListener{{Handle: "rping (pid 4242)", Address: "10.77.0.1", Port: 7471, PortSpace: "tcp", Program: true}}}
	_, diags := Make(context.Background(), load(t, loopback), nil, Options{Refresher: agent})
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Summary == "Port held by another program" {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("want one error, got:\n%s", diagText(diags))
	}
	want := "listener.loop: 10.77.0.1:7471 (tcp) is held by rping (pid 4242), another program on the agent's host, not the agent (the kernel's RDMA resource tracking names it); stop that program, or choose another port."
	if errs[0].Detail != want {
		t.Errorf("detail:\n%s\nwant:\n%s", errs[0].Detail, want)
	}
}
