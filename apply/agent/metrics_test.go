package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// ScrapeMetrics gets url with c and parses it with Prometheus' text
// parser, as a Prometheus server would (the VM tests use it too).
func ScrapeMetrics(t testing.TB, c *http.Client, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scraping %s: %s\n%s", url, resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return mfs
}

// MetricValue is the value of name's series with exactly labels (a
// counter's, a gauge's or a histogram's sample count), and whether there
// is one.
func MetricValue(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
	for _, m := range mf.Metric {
		if len(m.Label) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.Label {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func serveRegistry(t *testing.T, a *Agent) string {
	srv := httptest.NewServer(promHandler(a))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func promHandler(a *Agent) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsHandler(a, nil))
	return mux
}

// A fake stream of events through the objects' own changes: the gauges
// are List's counts, the counters follow every transition, and an
// object's own series go with it.
func TestMetricsFollowTheObjects(t *testing.T) {
	a := New(nil)
	a.metrics = newMetrics(true)
	add := func(addr string, kind pb.Kind) *object {
		o := a.newObject(addr, "tok", "", kind)
		a.reg.add(o)
		return o
	}
	l := add("listener.srv", pb.Kind_LISTENER)
	l.event(pb.Status_LISTENING, "listening", "")
	var eps []*object
	for _, n := range []string{"endpoint.c[0]", "endpoint.c[1]", "endpoint.c[2]"} {
		o := add(n, pb.Kind_ENDPOINT)
		o.event(pb.Status_CONNECTING, "connecting", "")
		eps = append(eps, o)
	}
	eps[0].event(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	eps[1].event(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	eps[2].failure(pb.Status_REJECTED, "REJECTED", &agentError{Call: "rdma_connect", Msg: "rejected"})
	eps[1].event(pb.Status_ESTABLISHED, "probe answered", "") // no transition
	for i := range 5 {
		a.metrics.probe(eps[0].address, time.Duration(i+1)*time.Millisecond, i == 4)
	}
	a.metrics.reconnect(eps[1].address)
	a.metrics.connected(3 * time.Millisecond)

	url := serveRegistry(t, a)
	mfs := ScrapeMetrics(t, http.DefaultClient, url)
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"rdmaform_objects", map[string]string{"kind": "listener", "status": "listening"}, 1},
		{"rdmaform_objects", map[string]string{"kind": "endpoint", "status": "established"}, 2},
		{"rdmaform_objects", map[string]string{"kind": "endpoint", "status": "rejected"}, 1},
		{"rdmaform_status_transitions_total", map[string]string{"kind": "endpoint", "from": "creating", "to": "connecting"}, 3},
		{"rdmaform_status_transitions_total", map[string]string{"kind": "endpoint", "from": "connecting", "to": "established"}, 2},
		{"rdmaform_status_transitions_total", map[string]string{"kind": "endpoint", "from": "connecting", "to": "rejected"}, 1},
		{"rdmaform_status_transitions_total", map[string]string{"kind": "listener", "from": "creating", "to": "listening"}, 1},
		{"rdmaform_probes_sent_total", map[string]string{"object": "endpoint.c[0]"}, 5},
		{"rdmaform_probes_lost_total", map[string]string{"object": "endpoint.c[0]"}, 1},
		{"rdmaform_probe_rtt_seconds", map[string]string{}, 4},
		{"rdmaform_reconnects_total", map[string]string{"object": "endpoint.c[1]"}, 1},
		{"rdmaform_connect_duration_seconds", map[string]string{}, 1},
	}
	for _, w := range want {
		if got, ok := MetricValue(mfs, w.name, w.labels); !ok || got != w.value {
			t.Errorf("%s%v = %v (found %v), want %v", w.name, w.labels, got, ok, w.value)
		}
	}
	if n := len(mfs["rdmaform_status_transitions_total"].GetMetric()); n != 4 {
		t.Errorf("%d transition series, want 4 (a change that keeps the status is none)", n)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if mfs[name] == nil {
			t.Errorf("no %s: the Go and process collectors are missing", name)
		}
	}

	// The object goes: its own series too, and it is no longer counted.
	eps[0].markDeleted()
	a.reg.remove(eps[0])
	mfs = ScrapeMetrics(t, http.DefaultClient, url)
	if _, ok := MetricValue(mfs, "rdmaform_probes_sent_total", map[string]string{"object": "endpoint.c[0]"}); ok {
		t.Error("endpoint.c[0]'s probe series outlived it")
	}
	if got, _ := MetricValue(mfs, "rdmaform_objects", map[string]string{"kind": "endpoint", "status": "established"}); got != 1 {
		t.Errorf("%v established endpoints after a delete, want 1", got)
	}
}

// Without -metrics-per-object no series names an object.
func TestMetricsHaveNoObjectLabelByDefault(t *testing.T) {
	a := New(nil)
	o := a.newObject("endpoint.c[0]", "tok", "", pb.Kind_ENDPOINT)
	a.reg.add(o)
	a.metrics.probe(o.address, time.Millisecond, false)
	a.metrics.reconnect(o.address)
	mfs := ScrapeMetrics(t, http.DefaultClient, serveRegistry(t, a))
	if got, ok := MetricValue(mfs, "rdmaform_probes_sent_total", map[string]string{}); !ok || got != 1 {
		t.Errorf("probes sent %v (%v), want 1 without labels", got, ok)
	}
	for name, mf := range mfs {
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "object" || strings.Contains(l.GetValue(), "endpoint.c") {
					t.Errorf("%s has %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

func TestPortsCollectorReadsEachPort(t *testing.T) {
	c := &portsCollector{devices: func() ([]rdmacm.Device, error) {
		return []rdmacm.Device{{Name: "mlx5_0", Ports: []rdmacm.Port{{Num: 1, State: "PORT_ACTIVE"}, {Num: 2, State: "PORT_DOWN"}}}}, nil
	}}
	a := New(nil)
	reg := a.Registry()
	reg.Unregister(&portsCollector{devices: rdmacm.PortStates}) // same descriptors: replaced by the fake
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "rdmaform_port_active" {
			continue
		}
		for _, m := range mf.Metric {
			got[m.Label[0].GetValue()+"/"+m.Label[1].GetValue()] = m.Gauge.GetValue()
		}
	}
	if len(got) != 2 || got["mlx5_0/1"] != 1 || got["mlx5_0/2"] != 0 {
		t.Errorf("port series %v, want mlx5_0/1 = 1, mlx5_0/2 = 0", got)
	}
}

// With TLS settings, /metrics is served over the agent's mutual TLS: a
// scraper without a certificate of the client CA is refused.
func TestMetricsOverTLSRefuseAClientWithoutACertificate(t *testing.T) {
	dir := t.TempDir()
	ca := pki.NewCA(t, dir, "ca")
	server := ca.Server(t, "storage-1", pki.IPs("127.0.0.1"))
	scraper := ca.Client(t, "prometheus")
	stranger := pki.NewCA(t, t.TempDir(), "other").Client(t, "stranger")
	info := runAgent(t, Options{Metrics: "127.0.0.1:0",
		TLS: TLS{CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: ca.CertFile}})
	if info.Metrics == "" || !info.MetricsTls || info.Listen != "" {
		t.Fatalf("Info: metrics %q, TLS %v, listen %q", info.Metrics, info.MetricsTls, info.Listen)
	}
	url := "https://" + info.Metrics + "/metrics"
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	clientWith := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
	}
	load := func(p pki.Pair) tls.Certificate {
		c, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for name, c := range map[string]*http.Client{
		"no certificate":         clientWith(),
		"another CA certificate": clientWith(load(stranger)),
	} {
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: served (%s), want a refused handshake", name, resp.Status)
		}
	}
	if resp, err := http.Get("http://" + info.Metrics + "/metrics"); err == nil {
		if resp.StatusCode == http.StatusOK {
			t.Error("plaintext HTTP was served /metrics")
		}
		resp.Body.Close()
	}
	mfs := ScrapeMetrics(t, clientWith(load(scraper)), url)
	if mfs["rdmaform_probe_rtt_seconds"] == nil || mfs["go_goroutines"] == nil {
		t.Errorf("the scrape with the client CA's certificate holds %d families, without the agent's", len(mfs))
	}
}

// runAgent runs an agent in this process until the test ends and
// returns its Info.
func runAgent(t *testing.T, o Options) *pb.InfoResponse {
	t.Helper()
	dir, err := os.MkdirTemp("", "rdmaform-metrics-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	o.Socket = filepath.Join(dir, "rdmaform", "agent.sock")
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	ready := make(chan *pb.InfoResponse, 1)
	o.Ready = func(info *pb.InfoResponse) { ready <- info }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case info := <-ready:
		return info
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return nil
}
