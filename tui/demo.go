package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// DemoSource is a synthetic Source for trying the monitor without an
// agent: a protection domain, a listener with accepted connections and
// Endpoints endpoints whose statuses change at random, Rate times a second.
// The screen says it is demo data.
type DemoSource struct {
	Endpoints int
	Rate      int
}

var _ Source = DemoSource{}

// demoHistoryLimit bounds each object's history, as the agent does.
const demoHistoryLimit = 20

// Watch sends the synthetic snapshot, then random changes until ctx ends.
func (d DemoSource) Watch(ctx context.Context, snapshot func([]Object, AgentInfo), update func(Update)) error {
	now := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	objs := demoObjects(max(d.Endpoints, 1), now)
	snapshot(slices.Clone(objs), AgentInfo{
		Socket: "demo", PID: 0, StartedAt: now.Add(-3 * time.Hour),
		Devices: []DeviceInfo{{Name: "rxe0", Ports: []PortInfo{{Num: 1, State: "ACTIVE"}}}},
	})
	t := time.NewTicker(time.Second / time.Duration(max(d.Rate, 1)))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now = <-t.C:
		}
		i := rng.IntN(len(objs))
		if objs[i].Kind != KindEndpoint && objs[i].Kind != KindConnection {
			continue
		}
		objs[i] = demoStep(objs[i], rng, now)
		update(Update{Object: objs[i]})
	}
}

// demoStep moves an object to a plausible next status. It returns a new
// Object with its own history, since the monitor keeps the one it was given.
func demoStep(o Object, rng *rand.Rand, now time.Time) Object {
	next := map[string][]string{
		StatusEstablished:  {StatusEstablished, StatusEstablished, StatusEstablished, StatusEstablished, StatusDisconnected},
		StatusDisconnected: {StatusReconnecting},
		StatusReconnecting: {StatusEstablished, StatusEstablished, StatusRejected},
		StatusRejected:     {StatusReconnecting},
	}[o.Status]
	if len(next) == 0 {
		next = []string{StatusEstablished}
	}
	o.Status = next[rng.IntN(len(next))]
	o.LastEvent, o.LastEventAt = demoEvent[o.Status], now
	switch o.Status {
	case StatusEstablished:
		if o.ConnectedSince.IsZero() {
			o.ConnectedSince = now
		}
		o.Probe = demoProbe(rng, o.Probe)
	case StatusReconnecting:
		o.Reconnects++
		o.ConnectedSince = time.Time{}
	case StatusRejected:
		o.LastError = &ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", Message: "rdma_connect: REJECTED (reason 8: invalid service ID: no listener on that port)", At: now}
		o.ConnectedSince = time.Time{}
	default:
		o.ConnectedSince = time.Time{}
	}
	h := append(slices.Clone(o.History), Event{At: now, Name: o.LastEvent})
	o.History = h[max(len(h)-demoHistoryLimit, 0):]
	return o
}

var demoEvent = map[string]string{
	StatusEstablished:  "ESTABLISHED",
	StatusDisconnected: "DISCONNECTED",
	StatusReconnecting: "ADDR_RESOLVED",
	StatusRejected:     "REJECTED",
}

func demoProbe(rng *rand.Rand, old *ProbeStats) *ProbeStats {
	p := ProbeStats{Min: time.Hour}
	if old != nil {
		p = *old
	}
	p.Last = time.Duration(8000+rng.IntN(6000)) * time.Nanosecond
	if rng.IntN(20) == 0 {
		p.Last *= 40 // an occasional slow probe
	}
	p.Sent += 100
	if rng.IntN(10) == 0 {
		p.Lost++
	}
	p.Min, p.Max = min(p.Min, p.Last), max(p.Max, p.Last)
	p.Mean = (p.Mean*time.Duration(p.Sent-100) + p.Last*100) / time.Duration(p.Sent)
	p.Degraded = p.Last > 200*time.Microsecond
	return &p
}

func demoObjects(endpoints int, now time.Time) []Object {
	pd := Object{Address: "protection_domain.pd0", Kind: KindProtectionDomain, Status: "created", Device: "rxe0", Port: 1,
		LastEvent: "created", LastEventAt: now.Add(-3 * time.Hour)}
	lis := Object{Address: "listener.storage", Kind: KindListener, Status: StatusListening,
		LocalAddr: "10.77.0.1:7471", Device: "rxe0", Port: 1, LastEvent: "listening", LastEventAt: now.Add(-3 * time.Hour),
		Config: []Setting{{"protection_domain", pd.Address}, {"port", "7471"}, {"backlog", "64"}}}
	objs := []Object{pd, lis}
	for i := range 4 {
		since := now.Add(-time.Duration(i+1) * 17 * time.Minute)
		objs = append(objs, Object{
			Address: fmt.Sprintf("%s/conn/%d", lis.Address, i), Parent: lis.Address, Kind: KindConnection,
			Status: StatusEstablished, LocalAddr: lis.LocalAddr, RemoteAddr: fmt.Sprintf("10.77.0.%d:%d", 10+i, 40000+i),
			QPNum: uint32(300 + i), QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: since,
			LastEvent: "ESTABLISHED", LastEventAt: since, History: []Event{{At: since, Name: "CONNECT_REQUEST"}, {At: since, Name: "ESTABLISHED"}},
		})
	}
	for i := range endpoints {
		since := now.Add(-time.Duration(i%50+1) * time.Minute)
		objs = append(objs, Object{
			Address: fmt.Sprintf("endpoint.client[%d]", i), Kind: KindEndpoint, Status: StatusEstablished,
			LocalAddr: fmt.Sprintf("10.77.0.1:%d", 50000+i), RemoteAddr: "10.77.0.2:7471",
			QPNum: uint32(1000 + i), QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: since,
			LastEvent: "ESTABLISHED", LastEventAt: since,
			Config: []Setting{{"protection_domain", pd.Address}, {"qp_type", "RC"}, {"max_send_wr", "128"}, {"max_recv_wr", "128"},
				{"remote", "10.77.0.2:7471"}, {"retry_count", "7"}, {"rnr_retry_count", "7"}},
			Probe:   &ProbeStats{Last: 11 * time.Microsecond, Min: 9 * time.Microsecond, Mean: 11 * time.Microsecond, Max: 31 * time.Microsecond, Sent: 1000},
			History: []Event{{At: since, Name: "ADDR_RESOLVED"}, {At: since, Name: "ROUTE_RESOLVED"}, {At: since, Name: "ESTABLISHED"}},
		})
	}
	return objs
}
