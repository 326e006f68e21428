package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
)

// loopbackCBD is loopback with its endpoints replaced create-before-destroy.
var loopbackCBD = strings.Replace(loopback, "  reconnect {}", "  reconnect {}\n\n  lifecycle {\n    create_before_destroy = true\n  }", 1)

func replaceClient0() planner.Options {
	return planner.Options{Replace: []addrs.Instance{{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}, Key: addrs.IntKey(0)}}}
}

// appliedCBD applies loopbackCBD and returns endpoint.client[0]'s create
// token.
func appliedCBD(t *testing.T) (*env, *config.Config, string) {
	t.Helper()
	e := newEnv(t)
	cfg := load(t, loopbackCBD)
	if _, r := e.run(context.Background(), cfg, planner.Options{}, 10); r.Failed() {
		t.Fatalf("first apply: %+v", r)
	}
	return e, cfg, e.current().Objects["endpoint.client[0]"].Facts.CreateToken
}

// A create_before_destroy replacement is made under another name while
// the object it replaces holds the address, which it is then destroyed
// by; the next replacement takes the address back.
func TestCreateBeforeDestroyMakesTheReplacementUnderAnotherName(t *testing.T) {
	e, cfg, oldToken := appliedCBD(t)

	e.fabric.calls = nil
	p, r := e.run(context.Background(), cfg, replaceClient0(), 10)
	if c := p.Change(addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}, Key: addrs.IntKey(0)}); c.Action != planner.CreateThenDelete {
		t.Fatalf("planned %v", c.Action)
	}
	if r.Failed() || r.Added != 1 || r.Destroyed != 1 {
		t.Fatalf("report %+v", r)
	}
	o := e.current().Objects["endpoint.client[0]"]
	name := o.Facts.AgentHandle
	if !strings.HasPrefix(name, "endpoint.client[0]#") || o.Facts.Deposed != nil || o.Facts.CreateToken == oldToken {
		t.Fatalf("state after the replacement: handle %q, deposed %+v, token %q (old %q)", name, o.Facts.Deposed, o.Facts.CreateToken, oldToken)
	}
	if got, want := strings.Join(e.fabric.calls, "\n"), "create "+name+"\ndelete endpoint.client[0]"; got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
	if _, old := e.fabric.live["endpoint.client[0]"]; old || e.fabric.live[name] != o.Facts.CreateToken {
		t.Fatalf("fabric holds %v", e.fabric.live)
	}
	if out := e.out.String(); !strings.Contains(out, "endpoint.client[0] (deposed object "+oldToken+"): Destruction complete") {
		t.Fatalf("progress does not name the deposed object:\n%s", out)
	}

	e.fabric.calls = nil
	if _, r := e.run(context.Background(), cfg, replaceClient0(), 10); r.Failed() {
		t.Fatalf("second replacement: %+v", r)
	}
	if got, want := strings.Join(e.fabric.calls, "\n"), "create endpoint.client[0]\ndelete "+name; got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
	if h := e.current().Objects["endpoint.client[0]"].Facts.AgentHandle; h != "" {
		t.Fatalf("handle after the second replacement %q, want the address", h)
	}
}

// When the replaced object cannot be destroyed, the state keeps it as
// deposed beside its replacement; the next plan says so and its apply
// destroys it before anything else.
func TestDeposedObjectIsDestroyedByTheNextApply(t *testing.T) {
	e, cfg, oldToken := appliedCBD(t)
	e.fabric.fail["endpoint.client[0]"] = errors.New("rdma_disconnect: EIO")
	if _, r := e.run(context.Background(), cfg, replaceClient0(), 10); !r.Failed() || r.Added != 1 {
		t.Fatalf("a failed delete of the replaced object: %+v", r)
	}
	o := e.current().Objects["endpoint.client[0]"]
	if d := o.Facts.Deposed; d == nil || d.AgentHandle != "endpoint.client[0]" || d.CreateToken != oldToken {
		t.Fatalf("deposed object in the state: %+v", o.Facts.Deposed)
	}
	name := o.Facts.AgentHandle

	delete(e.fabric.fail, "endpoint.client[0]")
	e.fabric.calls = nil
	p, r := e.run(context.Background(), cfg, planner.Options{}, 10)
	if len(p.Deposed) != 1 || p.Deposed[0].Handle != "endpoint.client[0]" || !p.HasChanges() {
		t.Fatalf("plan's deposed objects: %+v", p.Deposed)
	}
	if _, _, destroy := p.Counts(); destroy != 1 {
		t.Fatalf("plan destroys %d, want the deposed object", destroy)
	}
	if r.Failed() || r.Destroyed != 1 {
		t.Fatalf("report %+v", r)
	}
	if got := strings.Join(e.fabric.calls, "\n"); got != "delete endpoint.client[0]" {
		t.Fatalf("calls: %s", got)
	}
	if o := e.current().Objects["endpoint.client[0]"]; o.Facts.Deposed != nil || o.Facts.AgentHandle != name {
		t.Fatalf("state after the cleanup: %+v", o.Facts)
	}
	if _, old := e.fabric.live["endpoint.client[0]"]; old {
		t.Fatalf("the deposed object is still live: %v", e.fabric.live)
	}
	p2, _ := e.run(context.Background(), cfg, planner.Options{}, 10)
	if p2.HasChanges() {
		t.Fatal("a plan after the cleanup still has changes")
	}
}

// Interrupted after a create_before_destroy replacement is made but
// before the object it replaces is destroyed: the state keeps the
// replacement, and the old object as deposed, which the next apply
// destroys (not a third object made, the replacement left unmanaged).
func TestInterruptBetweenAReplacementsCreateAndDelete(t *testing.T) {
	e, cfg, oldToken := appliedCBD(t)
	e.fabric.started = make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for a := range e.fabric.started {
			if strings.HasPrefix(a, "endpoint.client[0]#") {
				cancel()
			}
		}
	}()
	_, r := e.run(ctx, cfg, replaceClient0(), 10)
	close(e.fabric.started)
	e.fabric.started = nil
	if !r.Interrupted || r.Added != 1 || r.Destroyed != 0 {
		t.Fatalf("report %+v", r)
	}
	o := e.current().Objects["endpoint.client[0]"]
	replacement := o.Facts.AgentHandle
	if !strings.HasPrefix(replacement, "endpoint.client[0]#") || o.Facts.Deposed == nil || o.Facts.CreateToken == oldToken {
		t.Fatalf("state after the interrupt: handle %q, deposed %+v, token %q (old %q)", replacement, o.Facts.Deposed, o.Facts.CreateToken, oldToken)
	}
	e.fabric.calls = nil
	if _, r := e.run(context.Background(), cfg, planner.Options{}, 10); r.Failed() || r.Added != 0 || r.Destroyed != 1 {
		t.Fatalf("next apply: %+v", r)
	}
	if got, want := strings.Join(e.fabric.calls, "\n"), "delete endpoint.client[0]"; got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
	if _, old := e.fabric.live["endpoint.client[0]"]; old || e.fabric.live[replacement] == "" {
		t.Fatalf("fabric holds %v", e.fabric.live)
	}
}
