package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

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

  accept {
    echo = true
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
`

func load(t testing.TB, src string) *config.Config {
	t.Helper()
	cfg, diags := config.NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatalf("config: %v", diags)
	}
	return cfg
}

func mustPlan(t testing.TB, cfg *config.Config, st *state.State, opts Options) *Plan {
	t.Helper()
	p, diags := Make(context.Background(), cfg, st, opts)
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	return p
}

// applied returns the state a perfect apply of p would leave: computed
// attributes filled as the agent would (a pd's id is its address), every
// object with a create token.
func applied(t testing.TB, p *Plan) *state.State {
	t.Helper()
	st := state.New()
	for _, c := range p.Changes {
		if c.Action == Delete {
			continue
		}
		v, _ := cty.Transform(c.AfterValue(), func(path cty.Path, v cty.Value) (cty.Value, error) {
			if v.IsKnown() {
				return v, nil
			}
			switch {
			case len(path) == 1 && path[0].(cty.GetAttrStep).Name == "pd":
				return cty.StringVal("protection_domain.rxe"), nil
			case len(path) == 1 && path[0].(cty.GetAttrStep).Name == "id":
				return cty.StringVal(c.Addr.String()), nil
			case v.Type() == cty.Number:
				return cty.NumberIntVal(1), nil
			}
			return cty.StringVal("x"), nil
		})
		raw, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		var deps []addrs.Instance
		for _, d := range c.Dependencies {
			deps = append(deps, addrs.Instance{Resource: d})
		}
		st.SetObject(&state.Object{Addr: c.Addr, Attributes: raw, Dependencies: deps,
			Facts: state.Facts{CreateToken: "tok-" + c.Addr.String()}, SensitiveAttributes: c.SensitiveAttributes(), Agent: c.Agent})
	}
	return st
}

// fakeRefresher serves the state's objects as live, minus those in gone,
// with the status in status or else "established".
type fakeRefresher struct {
	st          *state.State
	gone        map[string]bool
	status      map[string]string
	connections map[string]int
}

func (f fakeRefresher) Live(context.Context) (map[string]LiveObject, error) {
	out := map[string]LiveObject{}
	for k, o := range f.st.Objects {
		if !f.gone[k] {
			status := f.status[k]
			if status == "" {
				status = "established"
			}
			out[k] = LiveObject{Token: o.Facts.CreateToken, Status: status, Connections: f.connections[k]}
		}
	}
	return out, nil
}

type fakeDevices struct {
	devices []Device
	routes  map[string]string
}

func (f fakeDevices) Devices(context.Context) ([]Device, error) { return f.devices, nil }
func (f fakeDevices) DeviceFor(_ context.Context, a string) (string, error) {
	if d, ok := f.routes[a]; ok {
		return d, nil
	}
	return "", ErrNoDevice
}

func actions(p *Plan) string {
	var b strings.Builder
	for _, c := range p.Changes {
		b.WriteString(c.Addr.String() + " " + c.Action.String())
		if c.Reason != "" {
			b.WriteString(" (" + string(c.Reason) + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func mustAddr(t testing.TB, s string) addrs.Instance {
	t.Helper()
	a, err := addrs.ParseInstance(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func diagText(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// everyAgent gives every agent the devices di answers with.
func everyAgent(di DeviceInfo) func(string) DeviceInfo {
	return func(string) DeviceInfo { return di }
}
