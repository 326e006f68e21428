package apply

import (
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

func TestHandleNamesInANamespace(t *testing.T) {
	a := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}, Key: addrs.IntKey(0)}
	if h := HandleIn(a, ""); h.Name != "endpoint.client[0]" || h.Addr != a {
		t.Fatalf("HandleIn without a namespace: %+v", h)
	}
	base := HandleIn(a, "b").Name
	if base != "endpoint.client[0]@b" {
		t.Fatalf("HandleIn in b: %q", base)
	}
	held := func(name string) *state.Object { return &state.Object{Addr: a, Facts: state.Facts{AgentHandle: name}} }
	for _, c := range []struct {
		prior *state.Object
		want  string
	}{
		{nil, "endpoint.client[0]@b"},
		{held("endpoint.client[0]@b"), "endpoint.client[0]@b#0123abcd"},
		{held("endpoint.client[0]@b#99999999"), "endpoint.client[0]@b"},
		// Made before the namespace was set: the replacement takes the
		// namespace's name, which nothing holds.
		{held("endpoint.client[0]"), "endpoint.client[0]@b"},
	} {
		if got := replacementName(base, c.prior, "0123abcd-ffff"); got != c.want {
			t.Errorf("replacementName(%q, prior %+v) = %q, want %q", base, c.prior, got, c.want)
		}
	}
}
