package render

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const loopback = `
protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.rxe.id

  qp {
    max_send_wr = 32
  }
}

endpoint "client" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id

  qp {
    max_send_wr = 32
  }

  reconnect {
    min_backoff = "100ms"
  }
}

output "port" {
  value = listener.loop.port
}
`

func load(t *testing.T, src string) *config.Config {
	t.Helper()
	cfg, diags := config.NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatalf("config: %v", diags)
	}
	return cfg
}

func plan(t *testing.T, cfg *config.Config, st *state.State, opts planner.Options) *planner.Plan {
	t.Helper()
	p, diags := planner.Make(context.Background(), cfg, st, opts)
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	return p
}

// applied is the state a perfect apply of p leaves, computed attributes
// filled with fixed values so that golden files are stable.
func applied(t *testing.T, p *planner.Plan) *state.State {
	t.Helper()
	st := state.New()
	st.Lineage = "lineage"
	for _, c := range p.Changes {
		if c.Action == planner.Delete {
			continue
		}
		v, _ := cty.Transform(c.AfterValue(), func(path cty.Path, v cty.Value) (cty.Value, error) {
			if v.IsKnown() {
				return v, nil
			}
			name := path[len(path)-1].(cty.GetAttrStep).Name
			switch {
			case name == "pd":
				return cty.StringVal("protection_domain.rxe"), nil
			case name == "id":
				return cty.StringVal(c.Addr.String()), nil
			case name == "status":
				return cty.StringVal("established"), nil
			case v.Type() == cty.Number:
				return cty.NumberIntVal(17), nil
			}
			return cty.StringVal("rxe0"), nil
		})
		raw, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		var deps []addrs.Instance
		for _, d := range c.Dependencies {
			deps = append(deps, addrs.Instance{Resource: d})
		}
		st.SetObject(&state.Object{Addr: c.Addr, Attributes: raw, Dependencies: deps, SensitiveAttributes: c.SensitiveAttributes(), Agent: c.Agent})
	}
	raw, _ := ctyjson.Marshal(cty.NumberIntVal(7471), cty.Number)
	st.SetOutput("port", &state.Output{Value: raw, Type: []byte(`"number"`)})
	return st
}

type liveAll struct {
	st   *state.State
	gone string
}

func (l liveAll) Live(context.Context) (map[string]planner.LiveObject, error) {
	out := map[string]planner.LiveObject{}
	for k := range l.st.Objects {
		if k != l.gone {
			out[k] = planner.LiveObject{Status: "established"}
		}
	}
	return out, nil
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func human(p *planner.Plan) string {
	var b bytes.Buffer
	Human(&b, p, false)
	return b.String()
}

func TestHumanCreate(t *testing.T) {
	golden(t, "create.txt", human(plan(t, load(t, loopback), nil, planner.Options{})))
}

func TestHumanNoChanges(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	got := human(plan(t, cfg, st, planner.Options{Refresher: liveAll{st: st}}))
	want := "\nNo changes. Your fabric matches the configuration.\n\n" +
		"rdmaform has compared the live fabric against your configuration and found\nno differences, so no changes are needed.\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	// A destroy with nothing to destroy says so in Terraform's words.
	got = human(plan(t, cfg, nil, planner.Options{Destroy: true}))
	want = "\nNo changes. No objects need to be destroyed.\n\n" +
		"Either you have not created any objects yet or the existing objects were\nalready deleted outside of rdmaform.\n"
	if got != want {
		t.Fatalf("destroy of nothing: got\n%q\nwant\n%q", got, want)
	}
}

func TestHumanReplaceUpdateDeleteAndDrift(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	src := strings.Replace(loopback, `min_backoff = "100ms"`, `min_backoff = "200ms"`, 1)
	src = strings.Replace(src, "count   = 2", "count   = 1", 1)
	src = strings.Replace(src, "port    = 7471", "port    = 7472", 1)
	got := human(plan(t, load(t, src), st, planner.Options{Refresher: liveAll{st: st, gone: "protection_domain.rxe"}}))
	golden(t, "replace.txt", got)
}

func TestHumanInPlace(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	src := strings.Replace(loopback, `min_backoff = "100ms"`, `min_backoff = "200ms"`, 1)
	golden(t, "update.txt", human(plan(t, load(t, src), st, planner.Options{})))
}

func TestHumanDestroy(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	golden(t, "destroy.txt", human(plan(t, cfg, st, planner.Options{Destroy: true})))
}

// A deposed object is destroyed by the plan, named by its key.
func TestHumanDeposed(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	st.Objects["endpoint.client[0]"].Facts.Deposed = &state.DeposedObject{AgentHandle: "endpoint.client[0]", CreateToken: "a1b2c3d4-e5f6"}
	got := human(plan(t, cfg, st, planner.Options{}))
	for _, want := range []string{
		"  - destroy\n",
		"  # endpoint.client[0] (deposed object a1b2c3d4) will be destroyed\n",
		"  - endpoint \"client\" {\n      - id = \"endpoint.client[0]\" -> null\n    }\n",
		"Plan: 0 to add, 0 to change, 1 to destroy.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	var b bytes.Buffer
	if err := JSON(&b, plan(t, cfg, st, planner.Options{}), nil); err != nil || !strings.Contains(b.String(), `"deposed":"a1b2c3d4"`) {
		t.Errorf("JSON plan lacks the deposed object: %v\n%s", err, b.String())
	}
}

func TestHumanColor(t *testing.T) {
	var b bytes.Buffer
	Human(&b, plan(t, load(t, loopback), nil, planner.Options{}), true)
	if !strings.Contains(b.String(), "\x1b[32m+\x1b[0m endpoint \"client\" {") {
		t.Fatalf("no coloured marker in\n%s", b.String())
	}
	if strings.Contains(human(plan(t, load(t, loopback), nil, planner.Options{})), "\x1b[") {
		t.Fatal("escape codes with colour off")
	}
}

func TestJSON(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, plan(t, cfg, nil, planner.Options{}))
	src := strings.Replace(loopback, "port    = 7471", "port    = 7472", 1)
	p := plan(t, load(t, src), st, planner.Options{})
	p.Created = time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC) // the golden file's timestamp
	var b bytes.Buffer
	if err := JSON(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "replace.json", b.String())
}

// An output that is a map or object shows, on update, only the keys that
// change, as Terraform does.
func TestHumanOutputMapDiff(t *testing.T) {
	obj := func(kv ...any) cty.Value {
		m := map[string]cty.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(cty.Value)
		}
		return cty.ObjectVal(m)
	}
	n := cty.NumberIntVal
	var b bytes.Buffer
	writeOutputChanges(&b, false, []planner.OutputChange{
		{Name: "qps", Action: planner.Update,
			Before: obj("blocks", n(19), "meta", n(18)),
			After:  obj("blocks", n(19), "meta", cty.UnknownVal(cty.Number))},
		{Name: "ports", Action: planner.Update,
			Before: cty.MapVal(map[string]cty.Value{"a": n(1), "b": n(2), "c": n(3)}),
			After:  cty.MapVal(map[string]cty.Value{"a": n(1), "b": n(5), "d": n(4)})},
		{Name: "nested", Action: planner.Update,
			Before: obj("x", obj("p", n(1), "q", n(2)), "y", cty.StringVal("s")),
			After:  obj("x", obj("p", n(1), "q", n(3)), "y", cty.StringVal("s"))},
		{Name: "n", Action: planner.Update, Before: n(1), After: n(2)},
	})
	want := `
Changes to Outputs:
  ~ qps    = {
      ~ meta = 18 -> (known after apply)
        # (1 unchanged attribute hidden)
    }
  ~ ports  = {
      ~ b = 2 -> 5
      - c = 3 -> null
      + d = 4
        # (1 unchanged element hidden)
    }
  ~ nested = {
      ~ x = {
          ~ q = 2 -> 3
            # (1 unchanged attribute hidden)
        }
        # (1 unchanged attribute hidden)
    }
  ~ n      = 1 -> 2
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// An object replaced because it failed says what the agent reported, in
// words that read: "an error (DEVICE_REMOVAL: ENODEV)", "it rejected".
func TestReasonLineOfAFailedObject(t *testing.T) {
	for _, c := range []struct {
		status, err, want string
	}{
		{"error", "DEVICE_REMOVAL: ENODEV", "(because the agent reports an error (DEVICE_REMOVAL: ENODEV) and will not bring it back by itself)"},
		{"rejected", "rdma_connect: ECONNREFUSED", "(because the agent reports it rejected (rdma_connect: ECONNREFUSED) and will not bring it back by itself)"},
		{"disconnected", "", "(because the agent reports it disconnected and will not bring it back by itself)"},
	} {
		ch := &planner.Change{Reason: planner.ReasonFailed, LiveStatus: c.status, LiveError: c.err}
		if got := reasonLine(ch); got != c.want {
			t.Errorf("%s: %q, want %q", c.status, got, c.want)
		}
	}
}

// A plan longer than the rendering's buffer is written in pieces; they
// make the same text, each change whole and in order, and its summary.
func TestHumanWritesALongPlanInPieces(t *testing.T) {
	src := `
listener "l" {
  address = "10.77.0.1"
  port    = 7481
}

endpoint "e" {
  count   = 300
  address = listener.l.address
  port    = listener.l.port
}
`
	p := planOfSource(t, src)
	var pieces writes
	Human(&pieces, p, false)
	if len(pieces) < 2 {
		t.Fatalf("a plan of %d bytes was written in %d piece(s)", len(strings.Join(pieces, "")), len(pieces))
	}
	out := strings.Join(pieces, "")
	at := 0
	for i := range 300 {
		head := fmt.Sprintf("\n  # endpoint.e[%d] will be created\n  + endpoint \"e\" {\n", i)
		next := strings.Index(out[at:], head)
		if next < 0 {
			t.Fatalf("endpoint.e[%d] is missing or out of order", i)
		}
		at += next + len(head)
		if end := strings.Index(out[at:], "\n    }\n"); end < 0 || strings.Contains(out[at:at+end], "# endpoint") {
			t.Fatalf("endpoint.e[%d]'s block is cut", i)
		}
	}
	if !strings.HasSuffix(out, "\nPlan: 301 to add, 0 to change, 0 to destroy.\n") {
		t.Fatalf("the plan ends with %q", out[len(out)-80:])
	}
}

// writes records each Write.
type writes []string

func (w *writes) Write(p []byte) (int, error) {
	*w = append(*w, string(p))
	return len(p), nil
}
