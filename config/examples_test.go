package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

// TestExamples loads and validates every examples/* directory that holds
// a configuration.
func TestExamples(t *testing.T) {
	dirs, _ := filepath.Glob("../examples/*")
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if hcl, _ := filepath.Glob(filepath.Join(dir, "*"+HCLSuffix)); len(hcl) == 0 {
			continue // not a configuration (another package's example)
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			l := NewLoader()
			cfg, diags := l.Load(dir, VarInputs{})
			if len(diags) > 0 {
				var b stringsBuilder
				_ = l.WriteDiagnostics(&b, diags, false, 0)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
			if len(cfg.Instances) == 0 {
				t.Fatal("no instances")
			}
		})
	}
	if n < 4 {
		t.Fatalf("found %d example directories, want at least 4", n)
	}
}

func TestLoopbackExampleValues(t *testing.T) {
	cfg, diags := Load("../examples/loopback", VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	a, _ := addrs.ParseInstance("endpoint.client[3]")
	inst := cfg.Instances[a]
	if inst == nil {
		t.Fatalf("no %s; have %v", a, cfg.SortedInstances())
	}
	e := inst.Endpoint
	if e.Address != "10.77.0.1" || e.Port != 7471 || e.PortSpace != PortSpaceTCP || e.QP.Type != QPTypeRC ||
		string(e.Connect.PrivateData) != "client-3" || e.Connect.RetryCount != 7 || e.Probe.Size != 64 {
		t.Errorf("endpoint = %+v, qp %+v", e, e.QP)
	}
	if inst.Known("pd") || !inst.Known("address") || inst.Known("id") {
		t.Errorf("known: pd %v address %v id %v; want false true false", inst.Known("pd"), inst.Known("address"), inst.Known("id"))
	}
	want := []string{"protection_domain.rxe", "listener.loop"}
	if len(inst.Resource.DependsOn) != 2 || inst.Resource.DependsOn[0].String() != want[0] || inst.Resource.DependsOn[1].String() != want[1] {
		t.Errorf("DependsOn = %v, want %v", inst.Resource.DependsOn, want)
	}
}
