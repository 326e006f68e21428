package agent

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// metrics are the agent's Prometheus collectors (docs/observability.md
// lists them with their labels). Every label takes values from a small
// fixed set (kinds, statuses, CM event names, devices and ports), so the
// series stay bounded whatever the fabric's size; only with perObject do
// the per-endpoint counters carry an object label, one series per object,
// dropped when the object goes.
type promMetrics struct {
	perObject   bool
	transitions *prometheus.CounterVec // kind, from, to
	cmEvents    *prometheus.CounterVec // kind, event
	reconnects  *prometheus.CounterVec // [object]
	connect     prometheus.Histogram
	probeRTT    prometheus.Histogram
	probesSent  *prometheus.CounterVec // [object]
	probesLost  *prometheus.CounterVec // [object]
	kernel      *prometheus.CounterVec // kind: missing, mismatch, leak
}

func newMetrics(perObject bool) *promMetrics {
	var objLabel []string
	if perObject {
		objLabel = []string{"object"}
	}
	return &promMetrics{
		perObject: perObject,
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_status_transitions_total",
			Help: "Changes of an object's status, by kind and the statuses it left and entered.",
		}, []string{"kind", "from", "to"}),
		cmEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_cm_events_total",
			Help: "RDMA CM events read for the agent's ids, by the kind of object and the event (RDMA_CM_EVENT_ without its prefix).",
		}, []string{"kind", "event"}),
		reconnects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_reconnects_total",
			Help: "Reconnect attempts of endpoints with a reconnect policy.",
		}, objLabel),
		connect: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rdmaform_connect_duration_seconds",
			Help: "Time from an endpoint's connect attempt (address and route resolution included) to ESTABLISHED.",
			// 1 ms to about 33 s: a Soft-RoCE connect takes milliseconds,
			// one behind a thousand others or a slow peer seconds.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		probeRTT: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rdmaform_probe_rtt_seconds",
			Help: "Round trips of the endpoints' answered probes.",
			// 5 µs to about 5 s: hardware answers in microseconds,
			// Soft-RoCE under load in milliseconds.
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 21),
		}),
		probesSent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_probes_sent_total",
			Help: "Probes the endpoints sent.",
		}, objLabel),
		probesLost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_probes_lost_total",
			Help: "Probes that got no echo within their timeout, or whose send failed.",
		}, objLabel),
		kernel: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rdmaform_kernel_discrepancies_total",
			Help: "Discrepancies between the agent and the kernel's RDMA resource tracking, each counted once when found: an object missing from the kernel or held otherwise there (mismatch), a cm_id or QP of the agent's process that it does not hold (leak).",
		}, []string{"kind"}),
	}
}

func (m *promMetrics) kernelDiscrepancy(kind string) { m.kernel.WithLabelValues(kind).Inc() }

// objectValues are the label values of a per-object series.
func (m *promMetrics) objectValues(addr string) []string {
	if m.perObject {
		return []string{addr}
	}
	return nil
}

func (m *promMetrics) transition(kind pb.Kind, from, to pb.Status) {
	if from != to {
		m.transitions.WithLabelValues(KindWord(kind), StatusWord(from), StatusWord(to)).Inc()
	}
}

func (m *promMetrics) cmEvent(kind pb.Kind, t rdmacm.EventType) {
	m.cmEvents.WithLabelValues(KindWord(kind), t.String()).Inc()
}

func (m *promMetrics) reconnect(addr string) {
	m.reconnects.WithLabelValues(m.objectValues(addr)...).Inc()
}

func (m *promMetrics) connected(took time.Duration) { m.connect.Observe(took.Seconds()) }

func (m *promMetrics) probe(addr string, rtt time.Duration, lost bool) {
	m.probesSent.WithLabelValues(m.objectValues(addr)...).Inc()
	if lost {
		m.probesLost.WithLabelValues(m.objectValues(addr)...).Inc()
		return
	}
	m.probeRTT.Observe(rtt.Seconds())
}

// forget drops an object's own series, so that a fabric that changes
// does not leave a series behind for every object it ever had.
func (m *promMetrics) forget(addr string) {
	if !m.perObject {
		return
	}
	for _, v := range []*prometheus.CounterVec{m.reconnects, m.probesSent, m.probesLost} {
		v.DeleteLabelValues(addr)
	}
}

// Registry returns a registry with the agent's collectors, the objects
// and ports read at each scrape, and the Go and process collectors.
func (a *Agent) Registry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	m := a.metrics
	r.MustRegister(m.transitions, m.cmEvents, m.reconnects, m.connect, m.probeRTT, m.probesSent, m.probesLost, m.kernel,
		&objectsCollector{a: a}, &portsCollector{devices: rdmacm.PortStates},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

var (
	objectsDesc = prometheus.NewDesc("rdmaform_objects",
		"Objects the agent holds, by kind and status (what List returns).", []string{"kind", "status"}, nil)
	portActiveDesc = prometheus.NewDesc("rdmaform_port_active",
		"1 when the device's port is PORT_ACTIVE, 0 otherwise (ibv_query_port at the scrape).", []string{"device", "port"}, nil)
)

// objectsCollector counts the registry's objects at each scrape, so that
// the figures are List's and cannot drift from it.
type objectsCollector struct{ a *Agent }

func (c *objectsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- objectsDesc }

func (c *objectsCollector) Collect(ch chan<- prometheus.Metric) {
	type key struct {
		kind   pb.Kind
		status pb.Status
	}
	counts := map[key]int{}
	for _, o := range c.a.reg.all() {
		counts[key{o.kind, o.status()}]++
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(n), KindWord(k.kind), StatusWord(k.status))
	}
}

// portsCollector reads the devices' port states at each scrape. A host
// without RDMA devices has no port series.
type portsCollector struct {
	devices func() ([]rdmacm.Device, error)
}

func (c *portsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- portActiveDesc }

func (c *portsCollector) Collect(ch chan<- prometheus.Metric) {
	devs, err := c.devices()
	if err != nil {
		return
	}
	for _, d := range devs {
		for _, p := range d.Ports {
			v := 0.0
			if p.State == "PORT_ACTIVE" {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(portActiveDesc, prometheus.GaugeValue, v, d.Name, strconv.Itoa(p.Num))
		}
	}
}
