package tui

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Sorted by rtt, rows stay put while round trips jitter (audits saw 0.5
// to 5 ms on a loaded Soft-RoCE host from one second to the next): they
// go by their mean round trip, move when it halves or doubles, go down
// when their connection ends, and are placed afresh when the sort is
// chosen again.
func TestRTTSortKeepsRowsThroughJitter(t *testing.T) {
	endpoint := func(name string, mean time.Duration) Object {
		return Object{Address: "endpoint." + name, Kind: KindEndpoint, Status: StatusEstablished,
			Probe: &ProbeStats{Last: mean, Mean: mean, Sent: 30}}
	}
	jittered := func(name string, mean, last time.Duration) Object {
		o := endpoint(name, mean)
		o.Probe.Last = last
		return o
	}
	m := newTestModel(120, 20, []Object{endpoint("a", 1500*time.Microsecond), endpoint("b", 1200*time.Microsecond), endpoint("c", 700*time.Microsecond)})
	press(m, "s", "s", "s", "s")
	order := func(want ...string) {
		t.Helper()
		m.table.refresh()
		if m.table.sort != sortByRTT {
			t.Fatalf("sort: %s", m.table.sort)
		}
		if got := addresses(m.table.rows); !slices.Equal(got, want) {
			t.Errorf("rows %q, want %q", got, want)
		}
	}
	update := func(objs ...Object) {
		var u []Update
		for _, o := range objs {
			u = append(u, Update{Object: o})
		}
		m.Update(feedMsg{updates: u, link: linkState{up: true}})
	}
	order("endpoint.a", "endpoint.b", "endpoint.c")
	if title := m.table.title(); !strings.Contains(title, "sort: rtt (mean, held within ×2)") {
		t.Errorf("title %q does not say the rtt order is held", title)
	}

	update(endpoint("a", 1300*time.Microsecond), endpoint("b", 1700*time.Microsecond), endpoint("c", 900*time.Microsecond))
	order("endpoint.a", "endpoint.b", "endpoint.c") // jitter of the means

	update(jittered("a", 1400*time.Microsecond, 500*time.Microsecond), jittered("c", 800*time.Microsecond, 5*time.Millisecond))
	order("endpoint.a", "endpoint.b", "endpoint.c") // tenfold jitter of the last probes

	update(endpoint("c", 5*time.Millisecond))
	order("endpoint.c", "endpoint.a", "endpoint.b") // c more than doubled

	noProbe := endpoint("a", 0)
	noProbe.Probe = nil
	update(noProbe, endpoint("d", 1400*time.Microsecond))
	order("endpoint.c", "endpoint.d", "endpoint.b", "endpoint.a") // a lost its probe; d is new

	ended := endpoint("c", 5*time.Millisecond)
	ended.Status, ended.Probe.Ended = StatusReconnecting, true
	update(ended)
	order("endpoint.d", "endpoint.b", "endpoint.a", "endpoint.c") // c's connection ended: no round trip

	update(endpoint("c", 5*time.Millisecond))
	press(m, "s", "s", "s", "s", "s", "s") // round to rtt again
	order("endpoint.c", "endpoint.b", "endpoint.d", "endpoint.a")
}
