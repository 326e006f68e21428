package planner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func TestEmptyStateCreatesEverything(t *testing.T) {
	p := mustPlan(t, load(t, loopback), nil, Options{})
	want := "protection_domain.rxe create\nlistener.loop create\nendpoint.client[0] create\nendpoint.client[1] create\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if add, ch, del := p.Counts(); add != 4 || ch != 0 || del != 0 {
		t.Fatalf("counts %d %d %d", add, ch, del)
	}
	if p.Prior.Exists {
		t.Fatal("no state, but Prior.Exists")
	}
}

func TestSecondPlanHasNoChanges(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, cfg, st, Options{Refresher: fakeRefresher{st: st}})
	if p.HasChanges() {
		t.Fatalf("want no changes, got\n%s", actions(p))
	}
	// The pd attribute, unknown in the configuration, keeps the state's
	// value and the computed id is carried over.
	c := p.Change(mustAddr(t, "endpoint.client[1]"))
	if got := c.AfterValue().GetAttr("pd"); !got.RawEquals(cty.StringVal("protection_domain.rxe")) {
		t.Fatalf("pd after = %#v", got)
	}
	if got := c.AfterValue().GetAttr("id"); !got.RawEquals(cty.StringVal("endpoint.client[1]")) {
		t.Fatalf("id after = %#v", got)
	}
}

func TestQPCapChangeForcesReplacement(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	cfg2 := load(t, strings.Replace(loopback, "count   = 2\n  address = listener.loop.address\n  port    = listener.loop.port\n  pd      = protection_domain.rxe.id\n\n  qp {\n    max_send_wr = 32",
		"count   = 2\n  address = listener.loop.address\n  port    = listener.loop.port\n  pd      = protection_domain.rxe.id\n\n  qp {\n    max_send_wr = 48", 1))
	p := mustPlan(t, cfg2, st, Options{})
	want := "protection_domain.rxe no-op\nlistener.loop no-op\n" +
		"endpoint.client[0] delete-then-create (replace_because_cannot_update)\nendpoint.client[1] delete-then-create (replace_because_cannot_update)\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	c := p.Changes[2]
	if len(c.RequiredReplace) != 1 || !c.RequiredReplace[0].Equals(cty.GetAttrPath("qp").GetAttr("max_send_wr")) {
		t.Fatalf("RequiredReplace = %#v", c.RequiredReplace)
	}
	if c.AfterValue().GetAttr("id").IsKnown() {
		t.Fatal("a replacement's id must be unknown")
	}
	if add, _, del := p.Counts(); add != 2 || del != 2 {
		t.Fatalf("counts add %d del %d", add, del)
	}
}

func TestReconnectChangeIsInPlace(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, load(t, strings.Replace(loopback, `min_backoff = "100ms"`, `min_backoff = "200ms"`, 1)), st, Options{})
	c := p.Change(mustAddr(t, "endpoint.client[0]"))
	if c.Action != Update || len(c.RequiredReplace) != 0 {
		t.Fatalf("action %v, required replace %v", c.Action, c.RequiredReplace)
	}
	if len(c.Changed) != 1 || !c.Changed[0].Equals(cty.GetAttrPath("reconnect").GetAttr("min_backoff")) {
		t.Fatalf("Changed = %#v", c.Changed)
	}
	if !c.AfterValue().GetAttr("id").IsKnown() {
		t.Fatal("an in-place update keeps its id")
	}
}

func TestRemovingAProbeBlockIsInPlace(t *testing.T) {
	src := strings.Replace(loopback, "  reconnect {", "  probe {}\n\n  reconnect {", 1)
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	p := mustPlan(t, load(t, loopback), st, Options{})
	c := p.Change(mustAddr(t, "endpoint.client[0]"))
	if c.Action != Update || len(c.Changed) != 1 || !c.Changed[0].Equals(cty.GetAttrPath("probe")) {
		t.Fatalf("action %v changed %#v", c.Action, c.Changed)
	}
}

func TestDriftRecreatesWhatTheAgentLost(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, cfg, st, Options{Refresher: fakeRefresher{st: st, gone: map[string]bool{"endpoint.client[1]": true}}})
	want := "protection_domain.rxe no-op\nlistener.loop no-op\nendpoint.client[0] no-op\nendpoint.client[1] create (create_because_gone)\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if len(p.Drift) != 1 || p.Drift[0].Addr.String() != "endpoint.client[1]" {
		t.Fatalf("drift %+v", p.Drift)
	}
}

func TestLostProtectionDomainReplacesItsUsers(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, cfg, st, Options{Refresher: fakeRefresher{st: st, gone: map[string]bool{"protection_domain.rxe": true}}})
	want := "protection_domain.rxe create (create_because_gone)\n" +
		"listener.loop delete-then-create (replace_because_cannot_update)\n" +
		"endpoint.client[0] delete-then-create (replace_because_cannot_update)\n" +
		"endpoint.client[1] delete-then-create (replace_because_cannot_update)\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if c := p.Changes[1]; len(c.RequiredReplace) != 1 || !c.RequiredReplace[0].Equals(cty.GetAttrPath("pd")) {
		t.Fatalf("listener RequiredReplace %#v", c.RequiredReplace)
	}
}

func TestTokenMismatchIsDrift(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	live := fakeRefresher{st: st.DeepCopy()}
	live.st.Object(mustAddr(t, "endpoint.client[0]")).Facts.CreateToken = "someone-else"
	p := mustPlan(t, cfg, st, Options{Refresher: live})
	if c := p.Change(mustAddr(t, "endpoint.client[0]")); c.Action != Create || c.Reason != ReasonGone {
		t.Fatalf("got %v %v", c.Action, c.Reason)
	}
	if p.Drift[0].Status != "established" {
		t.Fatalf("drift status %q", p.Drift[0].Status)
	}
}

// Objects the agent holds but reports failed for good are replaced: an
// error always, a rejected or disconnected endpoint when it has no
// reconnect policy (with one, the agent reconnects it).
func TestFailedObjectsAreReplaced(t *testing.T) {
	noReconnect := strings.Replace(loopback, "  reconnect {\n    min_backoff = \"100ms\"\n  }\n", "", 1)
	for _, tc := range []struct {
		name, src, addr, status string
		replaced                bool
	}{
		{"listener in error", loopback, "listener.loop", "error", true},
		{"protection domain in error (device removed)", loopback, "protection_domain.rxe", "error", true},
		{"endpoint disconnected, reconnect policy", loopback, "endpoint.client[0]", "disconnected", false},
		{"endpoint rejected, reconnect policy", loopback, "endpoint.client[0]", "rejected", false},
		{"endpoint in error, reconnect policy", loopback, "endpoint.client[0]", "error", false},
		{"endpoint in error, no reconnect policy", noReconnect, "endpoint.client[0]", "error", true},
		{"endpoint disconnected, no reconnect policy", noReconnect, "endpoint.client[0]", "disconnected", true},
		{"endpoint rejected, no reconnect policy", noReconnect, "endpoint.client[0]", "rejected", true},
		{"endpoint reconnecting", loopback, "endpoint.client[0]", "reconnecting", false},
		{"endpoint degraded", noReconnect, "endpoint.client[0]", "degraded", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := load(t, tc.src)
			st := applied(t, mustPlan(t, cfg, nil, Options{}))
			p := mustPlan(t, cfg, st, Options{Refresher: fakeRefresher{st: st, status: map[string]string{tc.addr: tc.status}}})
			c := p.Change(mustAddr(t, tc.addr))
			if !tc.replaced {
				if c.Action != NoOp {
					t.Fatalf("%s %s: %v %v", tc.addr, tc.status, c.Action, c.Reason)
				}
				return
			}
			if c.Action != DeleteThenCreate || c.Reason != ReasonFailed || c.LiveStatus != tc.status {
				t.Fatalf("%s %s: %v %v %q", tc.addr, tc.status, c.Action, c.Reason, c.LiveStatus)
			}
			assertAcyclic(t, p.Graph())
		})
	}
}

// Replacing a listener replaces the endpoints connected to it that have
// no reconnect policy (they would stay disconnected), after it; those
// with one are updated after it, waiting for their new connection, whose
// QP number and local port are known after apply.
func TestListenerReplacementReplacesEndpointsWithoutReconnect(t *testing.T) {
	noReconnect := strings.Replace(loopback, "  reconnect {\n    min_backoff = \"100ms\"\n  }\n", "", 1)
	for _, tc := range []struct {
		name, src string
		want      Action
	}{{"no reconnect policy", noReconnect, DeleteThenCreate}, {"reconnect policy", loopback, Update}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := load(t, tc.src)
			st := applied(t, mustPlan(t, cfg, nil, Options{}))
			p := mustPlan(t, cfg, st, Options{Replace: []addrs.Instance{mustAddr(t, "listener.loop")}})
			for _, a := range []string{"endpoint.client[0]", "endpoint.client[1]"} {
				c := p.Change(mustAddr(t, a))
				if c.Action != tc.want {
					t.Fatalf("%s: %v %v", a, c.Action, c.Reason)
				}
				if tc.want == DeleteThenCreate && (c.Reason != ReasonListenerReplaced || c.AfterValue().GetAttr("qp_num").IsKnown() ||
					!slices.Contains(c.Dependencies, addrs.Resource{Kind: addrs.Listener, Name: "loop"})) {
					t.Fatalf("%s: reason %v, after %#v, dependencies %v", a, c.Reason, c.AfterValue().GetAttr("qp_num"), c.Dependencies)
				}
				if tc.want == Update && (c.Reason != ReasonListenerReconnect || !c.Reconnects || c.AfterValue().GetAttr("qp_num").IsKnown() ||
					c.AfterValue().GetAttr("local_port").IsKnown() || !c.AfterValue().GetAttr("id").IsKnown() ||
					!slices.Contains(c.Dependencies, addrs.Resource{Kind: addrs.Listener, Name: "loop"})) {
					t.Fatalf("%s: reason %v, reconnects %v, after %#v, dependencies %v", a, c.Reason, c.Reconnects, c.AfterValue(), c.Dependencies)
				}
			}
			assertAcyclic(t, p.Graph())
		})
	}
}

// -target on a replaced listener leaves out the endpoints its
// replacement would cut off: the plan warns that they stay disconnected.
func TestTargetedListenerReplacementWarnsOfEndpointsLeftOut(t *testing.T) {
	noReconnect := strings.Replace(loopback, "  reconnect {\n    min_backoff = \"100ms\"\n  }\n", "", 1)
	cfg := load(t, noReconnect)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	l := mustAddr(t, "listener.loop")
	p, diags := Make(t.Context(), cfg, st, Options{Replace: []addrs.Instance{l}, Targets: []addrs.Instance{l}})
	if c := p.Change(mustAddr(t, "endpoint.client[0]")); c != nil {
		t.Fatalf("endpoint.client[0] planned despite -target: %v", c.Action)
	}
	if text := diagText(diags); !strings.Contains(text, "endpoint.client[0], endpoint.client[1] connect to a listener this plan replaces and have no reconnect block, and -target leaves them out") {
		t.Errorf("no warning:\n%s", text)
	}
	_, diags = Make(t.Context(), load(t, loopback), applied(t, mustPlan(t, load(t, loopback), nil, Options{})), Options{Replace: []addrs.Instance{l}, Targets: []addrs.Instance{l}})
	if strings.Contains(diagText(diags), "left disconnected") {
		t.Errorf("endpoints with a reconnect block are not left disconnected:\n%s", diagText(diags))
	}
}

func TestOrphansAreDeleted(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	src := strings.Replace(loopback, "count   = 2", "count   = 1", 1)
	src = strings.Replace(src, "protection_domain \"rxe\"", "protection_domain \"other\"", 1)
	src = strings.ReplaceAll(src, "protection_domain.rxe.id", "protection_domain.other.id")
	p := mustPlan(t, load(t, src), st, Options{})
	if c := p.Change(mustAddr(t, "endpoint.client[1]")); c.Action != Delete || c.Reason != ReasonNoKey {
		t.Fatalf("client[1]: %v %v", c.Action, c.Reason)
	}
	if c := p.Change(mustAddr(t, "protection_domain.rxe")); c.Action != Delete || c.Reason != ReasonNoConfig {
		t.Fatalf("rxe: %v %v", c.Action, c.Reason)
	}
	// The new PD is created, so what uses its id is replaced.
	if c := p.Change(mustAddr(t, "endpoint.client[0]")); c.Action != DeleteThenCreate {
		t.Fatalf("client[0]: %v", c.Action)
	}
}

func TestIgnoreChanges(t *testing.T) {
	src := strings.Replace(loopback, "  reconnect {", "  lifecycle {\n    ignore_changes = [qp, reconnect]\n  }\n\n  reconnect {", 1)
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	src2 := strings.Replace(src, `min_backoff = "100ms"`, `min_backoff = "300ms"`, 1)
	// The endpoint's qp block is the second one.
	i := strings.LastIndex(src2, "max_send_wr = 32")
	src2 = src2[:i] + "max_send_wr = 40" + src2[i+len("max_send_wr = 32"):]
	p := mustPlan(t, load(t, src2), st, Options{})
	if p.HasChanges() {
		t.Fatalf("ignored changes planned:\n%s", actions(p))
	}
	// Without ignore_changes the same edit is a replacement.
	src3 := strings.Replace(src2, "ignore_changes = [qp, reconnect]", "ignore_changes = [reconnect]", 1)
	if c := mustPlan(t, load(t, src3), st, Options{}).Change(mustAddr(t, "endpoint.client[0]")); c.Action != DeleteThenCreate {
		t.Fatalf("got %v", c.Action)
	}
}

func TestPreventDestroy(t *testing.T) {
	src := strings.Replace(loopback, "  device = \"rxe0\"\n", "  device = \"rxe0\"\n  lifecycle {\n    prevent_destroy = true\n  }\n", 1)
	cfg := load(t, src)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	_, diags := Make(context.Background(), cfg, st, Options{Destroy: true})
	if !diags.HasErrors() || !strings.Contains(diagText(diags), "protection_domain.rxe has lifecycle.prevent_destroy set") {
		t.Fatalf("diags: %s", diagText(diags))
	}
	if len(diags) != 1 {
		t.Fatalf("want one error, got %d", len(diags))
	}
	// A change that forces replacement is refused too.
	_, diags = Make(context.Background(), load(t, strings.Replace(src, `"rxe0"`, `"rxe1"`, 1)), st, Options{})
	if !diags.HasErrors() || !strings.Contains(diagText(diags), "forces replacement") {
		t.Fatalf("diags: %s", diagText(diags))
	}
}

func TestCreateBeforeDestroyPropagatesToDependencies(t *testing.T) {
	src := strings.Replace(loopback, "  reconnect {", "  lifecycle {\n    create_before_destroy = true\n  }\n\n  reconnect {", 1)
	// The listener on the default PD: replacing the PD leaves it alone.
	src = strings.Replace(src, "  port    = 7471\n  pd      = protection_domain.rxe.id\n", "  port    = 7471\n", 1)
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	p := mustPlan(t, load(t, src), st, Options{Replace: []addrs.Instance{mustAddr(t, "endpoint.client[0]"), mustAddr(t, "protection_domain.rxe")}})
	if c := p.Change(mustAddr(t, "endpoint.client[0]")); c.Action != CreateThenDelete || c.Reason != ReasonReplaceByRequest {
		t.Fatalf("client[0]: %v %v", c.Action, c.Reason)
	}
	// The protection domain has no create_before_destroy of its own, but
	// the endpoint depends on it.
	if c := p.Change(mustAddr(t, "protection_domain.rxe")); c.Action != CreateThenDelete {
		t.Fatalf("protection domain: %v", c.Action)
	}
	assertAcyclic(t, p.Graph())
}

// A listener replaced on the same address and port cannot listen beside
// the one it replaces: it is replaced destroy-first with a warning, and
// so are the create_before_destroy replacements depending on it (else
// the graph has a cycle).
func TestCreateBeforeDestroyOfABoundListenerIsDestroyFirst(t *testing.T) {
	src := strings.Replace(loopback, "  reconnect {", "  lifecycle {\n    create_before_destroy = true\n  }\n\n  reconnect {", 1)
	src = strings.Replace(src, "  port    = 7471\n", "  port    = 7471\n\n  lifecycle {\n    create_before_destroy = true\n  }\n", 1)
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	p, diags := Make(context.Background(), load(t, src), st, Options{Replace: []addrs.Instance{mustAddr(t, "endpoint.client[0]"), mustAddr(t, "listener.loop")}})
	if diags.HasErrors() {
		t.Fatal(diagText(diags))
	}
	for _, a := range []string{"listener.loop", "endpoint.client[0]"} {
		if c := p.Change(mustAddr(t, a)); c.Action != DeleteThenCreate {
			t.Errorf("%s: %v, want destroy-first", a, c.Action)
		}
	}
	if len(diags) != 1 || diags[0].Summary != "create_before_destroy cannot replace a listener on the same address" ||
		!strings.Contains(diags[0].Detail, "listener.loop keeps its address, port and port space") || !strings.Contains(diags[0].Detail, "endpoint.client") {
		t.Fatalf("diags: %s", diagText(diags))
	}
	assertAcyclic(t, p.Graph())

	// Moved to another port, the replacement can listen first.
	moved := strings.Replace(src, "  port    = 7471\n", "  port    = 7472\n", 1)
	p, diags = Make(context.Background(), load(t, moved), st, Options{})
	if diags.HasErrors() || len(diags) != 0 {
		t.Fatal(diagText(diags))
	}
	if c := p.Change(mustAddr(t, "listener.loop")); c.Action != CreateThenDelete {
		t.Fatalf("listener moved to another port: %v", c.Action)
	}
	assertAcyclic(t, p.Graph())
}

func TestReplaceUnknownAddressWarns(t *testing.T) {
	_, diags := Make(context.Background(), load(t, loopback), nil, Options{Replace: []addrs.Instance{mustAddr(t, "endpoint.nope")}})
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "Replace target not found" {
		t.Fatalf("diags: %s", diagText(diags))
	}
}

func TestTargetIncludesDependencies(t *testing.T) {
	p := mustPlan(t, load(t, loopback), nil, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.client[1]")}})
	want := "protection_domain.rxe create\nlistener.loop create\nendpoint.client[1] create\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDestroyTargetIncludesDependents(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, cfg, st, Options{Destroy: true, Targets: []addrs.Instance{mustAddr(t, "listener.loop")}})
	want := "listener.loop delete (delete_because_destroy_plan)\nendpoint.client[0] delete (delete_because_destroy_plan)\nendpoint.client[1] delete (delete_because_destroy_plan)\n"
	if got := actions(p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Each object the target brings says which block brought it.
	for _, c := range p.Changes {
		want := addrs.Resource{}
		if c.Addr.Kind == addrs.Endpoint {
			want = mustAddr(t, "listener.loop").Resource
		}
		if c.TargetedVia != want {
			t.Errorf("%s: brought by %q, want %q", c.Addr, c.TargetedVia, want)
		}
	}
}

func TestStateWithBadAttributesIsAnError(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	st.Object(mustAddr(t, "listener.loop")).Attributes = []byte(`{"port":"not a number"}`)
	_, diags := Make(context.Background(), cfg, st, Options{})
	if !diags.HasErrors() || !strings.Contains(diagText(diags), "listener.loop") {
		t.Fatalf("diags: %s", diagText(diags))
	}
}

func TestNoCreateBeforeDestroyReplacesDestroyFirstWithAWarning(t *testing.T) {
	src := strings.Replace(loopback, "  reconnect {", "  lifecycle {\n    create_before_destroy = true\n  }\n\n  reconnect {", 1)
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	p, diags := Make(context.Background(), load(t, src), st, Options{NoCreateBeforeDestroy: true,
		Replace: []addrs.Instance{mustAddr(t, "endpoint.client[0]"), mustAddr(t, "endpoint.client[1]")}})
	if diags.HasErrors() || len(diags) != 1 || !strings.Contains(diags[0].Detail, "endpoint.client cannot have its replacement created before") {
		t.Fatalf("diags: %s", diagText(diags))
	}
	if c := p.Change(mustAddr(t, "endpoint.client[1]")); c.Action != DeleteThenCreate {
		t.Fatalf("got %v", c.Action)
	}
}

func TestOutputsUnchangedThroughTheStateFile(t *testing.T) {
	src := loopback + `
output "ports" {
  value = { loop = listener.loop.port, other = 7 }
}
`
	cfg := load(t, src)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	v := cfg.Outputs["ports"].Value
	raw, _ := ctyjson.Marshal(v, v.Type())
	ty, _ := ctyjson.MarshalType(v.Type())
	st.SetOutput("ports", &state.Output{Value: raw, Type: ty})
	// Through the file form, which indents the values.
	data, err := state.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = state.Decode(data, "test"); err != nil {
		t.Fatal(err)
	}
	if p := mustPlan(t, cfg, st, Options{}); len(p.ChangedOutputs()) != 0 || len(p.OutputChanges) != 1 || p.OutputChanges[0].Action != NoOp || p.HasChanges() {
		t.Fatalf("output changes: %+v", p.OutputChanges)
	}
	st.Outputs["ports"].Value = []byte(`{"loop":7471,"other":8}`)
	if p := mustPlan(t, cfg, st, Options{}); len(p.OutputChanges) != 1 || p.OutputChanges[0].Action != Update {
		t.Fatalf("output changes: %+v", p.OutputChanges)
	}
}

// A -target or -replace that matches nothing says so, with the nearest
// known address; -replace of a block with instances names them.
func TestUnmatchedTargetsAreNamed(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	_, diags := Make(context.Background(), cfg, st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.clinet")}})
	if !strings.Contains(diagText(diags), `-target=endpoint.clinet matches no object in the configuration or the state, so it selects nothing. Did you mean "endpoint.client"?`) {
		t.Errorf("typo in -target: %s", diagText(diags))
	}
	_, diags = Make(context.Background(), cfg, st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.client[9]")}})
	if !strings.Contains(diagText(diags), "-target=endpoint.client[9] matches no object") {
		t.Errorf("index out of range in -target: %s", diagText(diags))
	}
	_, diags = Make(context.Background(), cfg, st, Options{Replace: []addrs.Instance{mustAddr(t, "endpoint.client")}})
	if !strings.Contains(diagText(diags), "-replace=endpoint.client names a block with instances (endpoint.client[0], endpoint.client[1]): -replace takes one instance, such as -replace='endpoint.client[0]'.") {
		t.Errorf("-replace of a block: %s", diagText(diags))
	}
	if _, diags = Make(context.Background(), cfg, st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.client")}}); strings.Contains(diagText(diags), "matches no object") {
		t.Errorf("a matching -target is reported: %s", diagText(diags))
	}
}

// A state instance keyed otherwise than its block repeats says so, as
// Terraform's "because resource does not use for_each".
func TestWrongRepetitionReason(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	o := *st.Objects["endpoint.client[0]"]
	o.Addr = mustAddr(t, `endpoint.client["a"]`)
	st.SetObject(&o)
	p := mustPlan(t, cfg, st, Options{})
	if c := p.Change(mustAddr(t, `endpoint.client["a"]`)); c == nil || c.Action != Delete || c.Reason != ReasonWrongRepetition {
		t.Fatalf("endpoint.client[\"a\"]: %+v", c)
	}
}

func TestKnownReplaceAddressIsNoSuggestion(t *testing.T) {
	_, diags := Make(context.Background(), load(t, loopback), nil, Options{Replace: []addrs.Instance{mustAddr(t, "listener.loop")}})
	if !strings.Contains(diagText(diags), "Replace target not found") || strings.Contains(diagText(diags), "Did you mean") {
		t.Errorf("%s", diagText(diags))
	}
}

// -replace of an object -target leaves out says that, not that there is
// no object; of one not made yet, that the plan creates it.
func TestReplaceWarningSaysWhy(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	_, diags := Make(context.Background(), cfg, st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.client[0]")}, Replace: []addrs.Instance{mustAddr(t, "endpoint.client[1]")}})
	if text := diagText(diags); !strings.Contains(text, "-replace=endpoint.client[1] is outside what -target selects, so it is not replaced: add -target=endpoint.client[1] to replace it.") {
		t.Errorf("outside -target: %s", text)
	}
	_, diags = Make(context.Background(), cfg, nil, Options{Replace: []addrs.Instance{mustAddr(t, "endpoint.client[1]")}})
	if text := diagText(diags); !strings.Contains(text, "the state holds no object at this address yet (the plan creates it)") || strings.Contains(text, "Did you mean") {
		t.Errorf("not made yet: %s", text)
	}
}

// A configuration sending more endpoints to a listener than its
// max_connections admits is warned of when the plan makes them: the agent
// would reject the connections over the limit.
func TestMoreEndpointsThanMaxConnectionsWarns(t *testing.T) {
	src := `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    max_connections = 2
  }
}

endpoint "e" {
  count   = 3
  address = listener.l.address
  port    = listener.l.port
}
`
	_, diags := Make(context.Background(), load(t, src), nil, Options{})
	if text := diagText(diags); !strings.Contains(text, "More endpoints than the listener's max_connections") || !strings.Contains(text, "3 endpoints of this configuration connect to listener.l (10.77.0.1:7471), which accepts at most 2") {
		t.Errorf("3 endpoints for 2: %s", text)
	}
	_, diags = Make(context.Background(), load(t, strings.Replace(src, "count   = 3", "count   = 2", 1)), nil, Options{})
	if len(diags) != 0 {
		t.Errorf("2 endpoints for 2: %s", diagText(diags))
	}
	// A listener on every address takes the endpoints to any of them.
	wild := strings.Replace(strings.Replace(src, `address = "10.77.0.1"`, `address = "0.0.0.0"`, 1), "address = listener.l.address", `address = "10.77.0.1"`, 1)
	_, diags = Make(context.Background(), load(t, wild), nil, Options{})
	if text := diagText(diags); !strings.Contains(text, "3 endpoints of this configuration connect to listener.l (0.0.0.0:7471)") {
		t.Errorf("a wildcard listener: %s", text)
	}
}
