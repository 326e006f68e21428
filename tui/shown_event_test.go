package tui

import (
	"slices"
	"testing"
	"time"
)

// An endpoint between connections shows the RDMA CM event that ended or
// refused its last attempt, not the agent's "reconnecting", which STATUS
// already says; the filter finds it by that event too.
func TestReconnectingEndpointShowsItsLastCMEvent(t *testing.T) {
	now := time.Now()
	o := &Object{Address: "endpoint.far[0]", Kind: KindEndpoint, Status: StatusReconnecting, Reconnects: 3,
		LastEvent: "reconnecting", LastEventAt: now.Add(-time.Second),
		History: []Event{
			{At: now.Add(-9 * time.Second), Name: "ESTABLISHED"},
			{At: now.Add(-3 * time.Second), Name: "REJECTED", Detail: "invalid service ID"},
			{At: now.Add(-time.Second), Name: "reconnecting", Detail: "attempt 3 in 400ms"},
		}}
	if got := lastEventCell(row{obj: o}, now); got != "REJECTED 3s ago" {
		t.Errorf("LAST EVENT of a reconnecting endpoint: %q", got)
	}
	got := addresses(buildRows(map[string]*Object{o.Address: o}, newMatcher("rej", false), sortByAddress.compare, nil, nil))
	if !slices.Equal(got, []string{o.Address}) {
		t.Errorf("/rej keeps %q", got)
	}
	est := &Object{Status: StatusEstablished, LastEvent: "ESTABLISHED", LastEventAt: now.Add(-2 * time.Second),
		History: []Event{{At: now.Add(-5 * time.Second), Name: "REJECTED"}, {At: now.Add(-2 * time.Second), Name: "ESTABLISHED"}}}
	if got := lastEventCell(row{obj: est}, now); got != "ESTABLISHED 2s ago" {
		t.Errorf("LAST EVENT of an established endpoint: %q", got)
	}
}
