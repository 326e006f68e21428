//go:build linux && cgo && integration

package agent_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// countsOf is List's objects counted by kind and status, as
// rdmaform_objects labels them.
func countsOf(objs []*pb.Object) map[string]float64 {
	out := map[string]float64{}
	for _, o := range objs {
		out[agent.KindWord(o.Kind)+"/"+agent.StatusWord(o.Status)]++
	}
	return out
}

func scrapedCounts(mfs map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, m := range mfs["rdmaform_objects"].GetMetric() {
		l := map[string]string{}
		for _, p := range m.Label {
			l[p.GetName()] = p.GetValue()
		}
		out[l["kind"]+"/"+l["status"]] = m.Gauge.GetValue()
	}
	return out
}

// An agent with -metrics: what a Prometheus scrape says is what List
// says, the CM events and connects are counted, the probe counters move
// between two scrapes, and rxe's port is active. At trace level, its log
// names each object and holds none of the private data.
func TestMetricsMatchTheAgentsList(t *testing.T) {
	p := startAgent(t, "-metrics=127.0.0.1:0")
	ctx := ctxFor(t, 5*time.Minute)
	info, err := p.Info(ctx, &pb.InfoRequest{})
	if err != nil || info.Metrics == "" || info.MetricsTls {
		t.Fatalf("Info: %v, metrics %q, TLS %v", err, info.GetMetrics(), info.GetMetricsTls())
	}
	if r, err := p.SetLogLevel(ctx, &pb.SetLogLevelRequest{Level: "trace"}); err != nil || r.Previous != "info" {
		t.Fatalf("SetLogLevel: %v, previous %q", err, r.GetPrevious())
	}
	url := "http://" + info.Metrics + "/metrics"
	web := &http.Client{Timeout: time.Minute}

	addr, port, fullPort := testAddr(t), freePort(), freePort()
	secrets := []string{"accept-secret-7f3a", "connect-secret-91c2", "reject-secret-4d8e"}
	spec := echoListener(addr, port, 0)
	spec.Accept.PrivateData = []byte(secrets[0])
	createListener(t, p, "listener.echo", spec)
	full := echoListener(addr, fullPort, 1)
	full.Accept.RejectPrivateData = []byte(secrets[2])
	createListener(t, p, "listener.full", full)
	createEndpoints(t, p, "endpoint.e", 4, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		s.Probe = probe100ms()
		s.Connect = &pb.Connect{PrivateData: []byte(secrets[1])}
		return s
	})
	createEndpoints(t, p, "endpoint.f", 2, func(int) *pb.EndpointSpec { return endpointSpec(addr, fullPort) })
	// The listener's side reads its ESTABLISHED after the endpoint's:
	// the 5 connections are waited for too.
	waitList(t, p, 2*time.Minute, "4 probing endpoints, 1 established and 1 rejected on the full listener, 5 connections", func(objs []*pb.Object) bool {
		e, f := byKind(objs, pb.Kind_ENDPOINT, "endpoint.e["), byKind(objs, pb.Kind_ENDPOINT, "endpoint.f[")
		if countStatus(byKind(objs, pb.Kind_CONNECTION, "listener."), pb.Status_ESTABLISHED) != 5 {
			return false
		}
		for _, o := range e {
			if o.Probe == nil || o.Probe.Received < 2 {
				return false
			}
		}
		return countStatus(e, pb.Status_ESTABLISHED) == 4 && countStatus(f, pb.Status_ESTABLISHED) == 1 && countStatus(f, pb.Status_REJECTED) == 1
	})

	// List, scrape, List: when both lists agree, the scrape between
	// them must say the same (a probe may turn an endpoint degraded at
	// any time, so agreement is waited for, not assumed).
	var first map[string]*dto.MetricFamily
	var sentBefore uint64
	for try := 0; ; try++ {
		before := list(t, p)
		mfs := agent.ScrapeMetrics(t, web, url)
		after := list(t, p)
		if !maps.Equal(countsOf(before), countsOf(after)) {
			if try == 50 {
				t.Fatalf("List never held still over a scrape: %v then %v", countsOf(before), countsOf(after))
			}
			continue
		}
		if got, want := scrapedCounts(mfs), countsOf(after); !maps.Equal(got, want) {
			t.Fatalf("rdmaform_objects says %v; List says %v", got, want)
		}
		first = mfs
		for _, o := range byKind(before, pb.Kind_ENDPOINT, "endpoint.e[") {
			sentBefore += o.Probe.Sent
		}
		break
	}
	if got := scrapedCounts(first)["connection/established"]; got != 5 {
		t.Errorf("%v established connections scraped, want 5 (4 + 1)", got)
	}
	atLeast := func(mfs map[string]*dto.MetricFamily, name string, labels map[string]string, min float64) float64 {
		t.Helper()
		got, _ := agent.MetricValue(mfs, name, labels)
		if got < min {
			t.Errorf("%s%v = %v, want at least %v", name, labels, got, min)
		}
		return got
	}
	exactly := func(mfs map[string]*dto.MetricFamily, name string, labels map[string]string, want float64) {
		t.Helper()
		if got, _ := agent.MetricValue(mfs, name, labels); got != want {
			t.Errorf("%s%v = %v, want %v", name, labels, got, want)
		}
	}
	atLeast(first, "rdmaform_status_transitions_total", map[string]string{"kind": "endpoint", "from": "connecting", "to": "established"}, 5)
	exactly(first, "rdmaform_status_transitions_total", map[string]string{"kind": "endpoint", "from": "connecting", "to": "rejected"}, 1)
	atLeast(first, "rdmaform_status_transitions_total", map[string]string{"kind": "listener", "from": "creating", "to": "listening"}, 2)
	atLeast(first, "rdmaform_cm_events_total", map[string]string{"kind": "endpoint", "event": "ESTABLISHED"}, 5)
	exactly(first, "rdmaform_cm_events_total", map[string]string{"kind": "endpoint", "event": "REJECTED"}, 1)
	atLeast(first, "rdmaform_cm_events_total", map[string]string{"kind": "listener", "event": "CONNECT_REQUEST"}, 6)
	atLeast(first, "rdmaform_connect_duration_seconds", map[string]string{}, 5)
	exactly(first, "rdmaform_port_active", map[string]string{"device": testDevice(t), "port": "1"}, 1)
	sent1 := atLeast(first, "rdmaform_probes_sent_total", map[string]string{}, float64(sentBefore))
	rtt1 := atLeast(first, "rdmaform_probe_rtt_seconds", map[string]string{}, 8)

	// The probe counters move: a second scrape, once List shows more
	// probes sent than the first scrape counted.
	waitList(t, p, time.Minute, "more probes sent than the first scrape counted", func(objs []*pb.Object) bool {
		var sent uint64
		for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.e[") {
			sent += o.Probe.Sent
		}
		return float64(sent) > sent1+20
	})
	second := agent.ScrapeMetrics(t, web, url)
	atLeast(second, "rdmaform_probes_sent_total", map[string]string{}, sent1+20)
	// Each probe is answered (a round trip) or lost: those moved with the
	// probes sent (less the few recorded while a scrape was read: at most
	// one per endpoint in each).
	lost1, _ := agent.MetricValue(first, "rdmaform_probes_lost_total", map[string]string{})
	rtt2, _ := agent.MetricValue(second, "rdmaform_probe_rtt_seconds", map[string]string{})
	lost2, _ := agent.MetricValue(second, "rdmaform_probes_lost_total", map[string]string{})
	if rtt2+lost2 < rtt1+lost1+10 {
		t.Errorf("round trips %v then %v, lost %v then %v: they did not follow the probes sent", rtt1, rtt2, lost1, lost2)
	}
	for name, mf := range second {
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "object" {
					t.Errorf("%s has an object label without -metrics-per-object", name)
				}
			}
		}
	}

	log := p.log(t)
	for _, s := range secrets {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s)), fmt.Sprintf("%x", s)} {
			if strings.Contains(log, form) {
				t.Errorf("the agent's log holds private data (%q)", form)
			}
		}
	}
	for _, want := range []string{`"msg":"log level changed","from":"info","to":"trace"`, `"msg":"status","object":"endpoint.e[0]"`, `"msg":"connect rejected","object":"endpoint.f[`} {
		if !strings.Contains(log, want) {
			t.Errorf("the agent's log has no %s:\n%s", want, tail(log, 40))
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
