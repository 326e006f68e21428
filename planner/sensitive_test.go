package planner

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// sensitiveConfig is shared with planner/render's tests.
var sensitiveConfig = mustReadFile("testdata/sensitive.rdma.hcl")

func mustReadFile(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func pathList(ps []cty.Path) string {
	return strings.Join(pathsToDotted(ps), " ")
}

func pathsToDotted(ps []cty.Path) []string {
	var out []string
	for _, p := range pathsToStrings(ps) {
		out = append(out, strings.Join(p, "."))
	}
	return out
}

// Changes carry the sensitive attributes: after from the configuration,
// before from the state (and the configuration, for a state that does not
// record them); a change only in a sensitive attribute is a change; a
// saved plan keeps them.
func TestSensitiveAttributesPlanned(t *testing.T) {
	p := mustPlan(t, load(t, sensitiveConfig), nil, Options{})
	l, e := p.Change(mustAddr(t, "listener.l")), p.Change(mustAddr(t, "endpoint.e"))
	if l.Action != Create || pathList(l.AfterSensitive) != "accept.private_data" || l.BeforeSensitive != nil {
		t.Fatalf("create listener.l: %s before %q after %q", l.Action, pathList(l.BeforeSensitive), pathList(l.AfterSensitive))
	}
	if pathList(e.AfterSensitive) != "connect.private_data" {
		t.Fatalf("create endpoint.e: after %q", pathList(e.AfterSensitive))
	}
	if v := l.AfterValue().GetAttr("accept").GetAttr("private_data"); v.IsMarked() || v.AsString() != "peer=tok-42" {
		t.Fatalf("the planned value is %#v", v)
	}
	st := applied(t, p)
	if got := st.Objects["listener.l"].SensitiveAttributes; len(got) != 1 || strings.Join(got[0], ".") != "accept.private_data" {
		t.Fatalf("SensitiveAttributes for the state: %v", got)
	}

	// Only the sensitive value changes: a replacement (the listener's
	// connections were accepted with the other value), sensitive on both
	// sides.
	changed := strings.Replace(sensitiveConfig, `"tok-42"`, `"tok-43"`, 1)
	p = mustPlan(t, load(t, changed), st, Options{})
	l = p.Change(mustAddr(t, "listener.l"))
	if l.Action != DeleteThenCreate || pathList(l.Changed) != "accept.private_data" ||
		pathList(l.BeforeSensitive) != "accept.private_data" || pathList(l.AfterSensitive) != "accept.private_data" {
		t.Fatalf("update: %s changed %q before %q after %q", l.Action, pathList(l.Changed), pathList(l.BeforeSensitive), pathList(l.AfterSensitive))
	}
	// The endpoint (no reconnect block) is replaced with its listener.
	if e := p.Change(mustAddr(t, "endpoint.e")); e.Reason != ReasonListenerReplaced || pathList(e.AfterSensitive) != "connect.private_data" || pathList(e.BeforeSensitive) != "connect.private_data" {
		t.Fatalf("endpoint.e: %s (%s) before %q after %q", e.Action, e.Reason, pathList(e.BeforeSensitive), pathList(e.AfterSensitive))
	}

	// No longer sensitive: the prior value still is, as the state says.
	plain := strings.Replace(changed, `private_data = local.pd`, `private_data = nonsensitive(local.pd)`, 1)
	p = mustPlan(t, load(t, plain), st, Options{})
	if l = p.Change(mustAddr(t, "listener.l")); pathList(l.BeforeSensitive) != "accept.private_data" || l.AfterSensitive != nil {
		t.Fatalf("made nonsensitive: before %q after %q", pathList(l.BeforeSensitive), pathList(l.AfterSensitive))
	}

	// Destroy, with or without the configuration, and a block removed.
	for _, withConfig := range []bool{true, false} {
		cfg := load(t, sensitiveConfig)
		if !withConfig {
			cfg = nil
		}
		p = mustPlan(t, cfg, st, Options{Destroy: true})
		if l = p.Change(mustAddr(t, "listener.l")); l.Action != Delete || pathList(l.BeforeSensitive) != "accept.private_data" {
			t.Fatalf("destroy (configuration %v): %s before %q", withConfig, l.Action, pathList(l.BeforeSensitive))
		}
	}
	noListener := sensitiveConfig[:strings.Index(sensitiveConfig, `listener "l"`)] + `endpoint "e" {
  address = "10.77.0.1"
  port    = 7801
  connect {
    private_data = sensitive("x")
  }
}
`
	p = mustPlan(t, load(t, noListener), st, Options{})
	if l = p.Change(mustAddr(t, "listener.l")); l.Action != Delete || pathList(l.BeforeSensitive) != "accept.private_data" {
		t.Fatalf("removed from the configuration: %s before %q", l.Action, pathList(l.BeforeSensitive))
	}

	// A state that records nothing (written before the record existed):
	// the configuration's say so.
	old := st.DeepCopy()
	for _, o := range old.Objects {
		o.SensitiveAttributes = nil
	}
	p = mustPlan(t, load(t, changed), old, Options{})
	if l = p.Change(mustAddr(t, "listener.l")); pathList(l.BeforeSensitive) != "accept.private_data" {
		t.Fatalf("state without the record: before %q", pathList(l.BeforeSensitive))
	}
	p = mustPlan(t, load(t, sensitiveConfig), old, Options{Destroy: true})
	if l = p.Change(mustAddr(t, "listener.l")); pathList(l.BeforeSensitive) != "accept.private_data" {
		t.Fatalf("destroy, state without the record: before %q", pathList(l.BeforeSensitive))
	}

	// Drift keeps the state's record.
	p = mustPlan(t, load(t, changed), st, Options{Refresher: fakeRefresher{st: st, gone: map[string]bool{"listener.l": true}}})
	if len(p.Drift) != 1 || pathList(p.Drift[0].BeforeSensitive) != "accept.private_data" {
		t.Fatalf("drift: %+v", p.Drift)
	}

	// A saved plan keeps them.
	p = mustPlan(t, load(t, changed), st, Options{Refresher: fakeRefresher{st: st, gone: map[string]bool{"endpoint.e": true}}})
	var b bytes.Buffer
	if err := WritePlanFile(&b, &SavedPlan{Plan: p}); err != nil {
		t.Fatal(err)
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Changes {
		d := sp.Plan.Changes[i]
		if pathList(d.BeforeSensitive) != pathList(c.BeforeSensitive) || pathList(d.AfterSensitive) != pathList(c.AfterSensitive) {
			t.Fatalf("%s after a round trip: before %q after %q, want %q %q", c.Addr,
				pathList(d.BeforeSensitive), pathList(d.AfterSensitive), pathList(c.BeforeSensitive), pathList(c.AfterSensitive))
		}
	}
	if len(sp.Plan.Drift) != 1 || pathList(sp.Plan.Drift[0].BeforeSensitive) != "connect.private_data" {
		t.Fatalf("drift after a round trip: %+v", sp.Plan.Drift)
	}
}

// A plan with nothing sensitive writes no sensitive fields, so that a
// saved plan of an rdmaform without them reads the same.
func TestPlanFileWithoutSensitive(t *testing.T) {
	p := mustPlan(t, load(t, loopback), nil, Options{})
	var b bytes.Buffer
	if err := WritePlanFile(&b, &SavedPlan{Plan: p}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sensitive") {
		t.Fatalf("sensitive fields written:\n%s", b.String())
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sp.Plan.Changes {
		if c.BeforeSensitive != nil || c.AfterSensitive != nil {
			t.Fatalf("%s: sensitive paths from nowhere", c.Addr)
		}
	}
}
