package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// peers: endpoint b's private data carries endpoint a's QP number, known
// only once a is made.
const peers = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}

endpoint "a" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
}

endpoint "b" {
  address = listener.l.address
  port    = listener.l.port
  qp {}

  connect {
    private_data = "peer-qp=${endpoint.a.qp_num}"
  }
}

output "b_private_data" {
  value = endpoint.b.connect.private_data
}
`

// An attribute computed from another object's attribute known only after
// apply gets its value during apply, is recorded, stays put in the next
// plan, and a change of the expression shows in the plan with its value.
func TestAttributeFromAnotherObjectsAfterApplyValue(t *testing.T) {
	e := newEnv(t)
	p, r := e.run(context.Background(), load(t, peers), planner.Options{}, 10)
	b := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "b"}}
	if c := p.Change(b); c.AfterValue().GetAttr("connect").GetAttr("private_data").IsKnown() {
		t.Fatal("the plan knows b's private data before a exists")
	}
	if r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	st := e.current()
	qp := st.Objects["endpoint.a"].Facts.QPNum
	want := "peer-qp=" + itoa(qp)
	if got := string(e.fabric.specs["endpoint.b"].Endpoint.Connect.PrivateData); got != want || qp == 0 {
		t.Fatalf("b connected with private data %q, want %q", got, want)
	}
	v, err := ctyjson.Unmarshal(st.Objects["endpoint.b"].Attributes, config.Schema(addrs.Endpoint).ImpliedType())
	if err != nil {
		t.Fatal(err)
	}
	if got := v.GetAttr("connect").GetAttr("private_data"); !got.RawEquals(cty.StringVal(want)) {
		t.Fatalf("state records b's private data as %#v", got)
	}
	if o := st.Outputs["b_private_data"]; o == nil || !strings.Contains(string(o.Value), want) {
		t.Fatalf("output: %+v", o)
	}

	p, _ = e.run(context.Background(), load(t, peers), planner.Options{}, 10)
	if p.HasChanges() {
		t.Fatalf("a second plan has changes: %+v", p.Change(b))
	}

	changed := strings.Replace(peers, `"peer-qp=${`, `"qp=${`, 1)
	e.fabric.calls = nil
	p, r = e.run(context.Background(), load(t, changed), planner.Options{}, 10)
	c := p.Change(b)
	if c.Action != planner.DeleteThenCreate || !c.AfterValue().GetAttr("connect").GetAttr("private_data").RawEquals(cty.StringVal("qp="+itoa(qp))) {
		t.Fatalf("changed expression planned as %v with %#v", c.Action, c.AfterValue().GetAttr("connect"))
	}
	if r.Failed() || string(e.fabric.specs["endpoint.b"].Endpoint.Connect.PrivateData) != "qp="+itoa(qp) {
		t.Fatalf("apply of the change: %+v, spec %q", r, e.fabric.specs["endpoint.b"].Endpoint.Connect.PrivateData)
	}
}

func itoa(n uint32) string { return cty.NumberIntVal(int64(n)).AsBigFloat().Text('f', 0) }
