package planner

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

const twoPDs = `
protection_domain "one" {
  device = "rxe0"
}

protection_domain "two" {
  device = "rxe0"
}
`

func pdEndpoints(pd string) string {
	return twoPDs + `
locals {
  pds = { a = protection_domain.one.id, b = protection_domain.two.id }
}

endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  pd      = ` + pd + `
}

endpoint "m" {
  for_each = toset(["a", "b"])
  address  = "10.77.0.1"
  port     = 7472
  pd       = local.pds[each.key]
}
`
}

// planThenApply plans src against st, checks the plan, and returns the
// state a perfect apply leaves.
func planThenApply(t *testing.T, src string, st *state.State) (*Plan, *state.State) {
	t.Helper()
	p := mustPlan(t, load(t, src), st, Options{})
	return p, applied(t, p)
}

// A reference to a protection domain the state holds is its id while
// planning, as Terraform evaluates a reference to an existing object:
// a new object's pd is known, a move to another protection domain plans
// its replacement (pd forces it), and a pd chosen per instance among
// several is known too.
func TestPDOfExistingProtectionDomainsIsKnownWhilePlanning(t *testing.T) {
	_, st := planThenApply(t, twoPDs, nil)
	p, st := planThenApply(t, pdEndpoints("protection_domain.one.id"), st)
	for _, a := range []string{"endpoint.e", `endpoint.m["a"]`, `endpoint.m["b"]`} {
		c := p.Change(mustAddr(t, a))
		if c == nil || c.Action != Create {
			t.Fatalf("%s: %v\n%s", a, c, actions(p))
		}
		if !c.AfterValue().GetAttr("pd").IsKnown() {
			t.Errorf("%s: pd is (known after apply), though its protection domain exists", a)
		}
	}
	if got := p.Change(mustAddr(t, `endpoint.m["b"]`)).AfterValue().GetAttr("pd").AsString(); got != "protection_domain.two" {
		t.Errorf(`endpoint.m["b"]'s pd is %q, want protection_domain.two`, got)
	}

	if p := mustPlan(t, load(t, pdEndpoints("protection_domain.one.id")), st, Options{}); p.HasChanges() {
		t.Fatalf("the same configuration again plans changes:\n%s", actions(p))
	}

	p = mustPlan(t, load(t, pdEndpoints("protection_domain.two.id")), st, Options{})
	c := p.Change(mustAddr(t, "endpoint.e"))
	if c == nil || !c.Action.IsReplace() {
		t.Fatalf("moving endpoint.e to another protection domain plans:\n%s", actions(p))
	}
	if len(c.RequiredReplace) != 1 || !c.RequiredReplace[0].Equals(cty.GetAttrPath("pd")) || c.AfterValue().GetAttr("pd").AsString() != "protection_domain.two" {
		t.Errorf("replacement forced by %#v, pd after %#v", c.RequiredReplace, c.AfterValue().GetAttr("pd"))
	}
	if strings.Count(actions(p), "no-op") != 4 {
		t.Errorf("only endpoint.e should change:\n%s", actions(p))
	}
}

// An endpoint that also depends on a listener the same plan makes (its
// address, or depends_on) still has its existing protection domain's id
// as pd while planning: only a protection domain made in the plan leaves
// it unknown.
func TestPDKnownBesideAListenerMadeInThePlan(t *testing.T) {
	_, st := planThenApply(t, twoPDs, nil)
	p, _ := planThenApply(t, twoPDs+`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.one.id
}

endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  pd      = protection_domain.one.id
}

endpoint "d" {
  address    = "10.77.0.1"
  port       = 7471
  pd         = protection_domain.two.id
  depends_on = [listener.l]
}
`, st)
	for a, want := range map[string]string{"listener.l": "protection_domain.one", "endpoint.e": "protection_domain.one", "endpoint.d": "protection_domain.two"} {
		c := p.Change(mustAddr(t, a))
		if c == nil || c.Action != Create {
			t.Fatalf("%s: %v\n%s", a, c, actions(p))
		}
		if pd := c.AfterValue().GetAttr("pd"); !pd.IsKnown() || pd.AsString() != want {
			t.Errorf("%s: pd %#v, want %q", a, pd, want)
		}
	}
}
