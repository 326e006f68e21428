package agent

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// The Grafana dashboard in examples/ is valid JSON, has the panels the
// docs promise, and queries only metrics the agent serves, so that it
// does not drift from them.
func TestGrafanaDashboardUsesTheAgentsMetrics(t *testing.T) {
	b, err := os.ReadFile("../../examples/grafana/rdmaform-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Type    string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	// Every series exists once something happened.
	a := New(nil)
	o := a.newObject("endpoint.e[0]", "tok", "", pb.Kind_ENDPOINT)
	a.reg.add(o)
	o.event(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	a.metrics.cmEvent(pb.Kind_ENDPOINT, rdmacm.Established)
	a.metrics.probe(o.address, time.Millisecond, true)
	a.metrics.reconnect(o.address)
	reg := a.Registry()
	reg.Unregister(&portsCollector{devices: rdmacm.PortStates})
	reg.MustRegister(&portsCollector{devices: func() ([]rdmacm.Device, error) {
		return []rdmacm.Device{{Name: "rxe0", Ports: []rdmacm.Port{{Num: 1, State: "PORT_ACTIVE"}}}}, nil
	}})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, mf := range mfs {
		served[mf.GetName()] = true
	}
	name := regexp.MustCompile(`\b(rdmaform|go|process)_[a-z_]+`)
	types := map[string]bool{}
	for _, p := range dash.Panels {
		types[p.Type] = true
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, m := range name.FindAllString(tg.Expr, -1) {
				if !served[strings.TrimSuffix(m, "_bucket")] {
					t.Errorf("panel %q queries %s, which the agent does not serve", p.Title, m)
				}
			}
		}
	}
	for _, want := range []string{"stat", "timeseries", "heatmap"} {
		if !types[want] {
			t.Errorf("the dashboard has no %s panel", want)
		}
	}
}
