package planner

import (
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// A no-change plan does not make the state's endpoints and listeners as
// cty values (the diff reads the decoded fields); a reader of an unchanged object's
// values gets the object the state records, made once however many
// goroutines ask.
func TestNoChangePlanMakesPriorValuesOnlyWhenRead(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	pre := DecodePriors(st)
	// As on a host without RDMA: the endpoints wait to reconnect.
	waiting := map[string]string{}
	for k, o := range st.Objects {
		if o.Addr.Kind == addrs.Endpoint {
			waiting[k] = "disconnected"
		}
	}
	p := mustPlan(t, cfg, st, Options{Refresher: fakeRefresher{st: st, status: waiting}, Priors: pre})
	if p.HasChanges() || len(p.Changes) != len(st.Objects) {
		t.Fatalf("want %d unchanged objects, got\n%s", len(st.Objects), actions(p))
	}
	for key, pr := range pre.byAddr {
		if pr.obj.Addr.Kind == addrs.ProtectionDomain {
			continue // its id stands for the endpoints' unknown pd (withPriorPD)
		}
		if pr.fields == nil || pr.fields.val != cty.NilVal {
			t.Errorf("%s: the plan made the prior's value", key)
		}
	}
	for _, c := range p.Changes {
		o := st.Objects[c.Addr.String()]
		want, err := decodeAttributes(config.Schema(c.Addr.Kind), o.Attributes)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]cty.Value, 8)
		var wg sync.WaitGroup
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					got[i] = c.BeforeValue()
				} else {
					got[i] = c.AfterValue()
				}
			}()
		}
		wg.Wait()
		for _, v := range got {
			if !v.RawEquals(want) {
				t.Fatalf("%s: %#v, want %#v", c.Addr, v, want)
			}
		}
	}
}
