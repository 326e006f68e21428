package command

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
)

const earlyDialConfig = `
locals {
  hosts = { a = "10.77.1.1:7470", b = "10.77.1.2:7470", c = "10.77.1.3:7470" }
}

agent "h" {
  for_each = local.hosts
  address  = each.value

  tls {
    ca_file   = "ca.pem"
    cert_file = "operator.pem"
    key_file  = "operator-key.pem"
  }
}

endpoint "e" {
  for_each = { x = "a", y = "b" }
  agent    = agent.h[each.value]
  address  = "10.77.0.1"
  port     = 7999
}
`

// A plan reaches the remote agents as soon as the agent blocks are
// evaluated, while the objects' blocks still are: the configuration hook,
// which runs once the configuration is loaded, finds the agents the
// objects are on dialled already. An agent no object is on (agent.h["c"])
// is dialled too but never read, and its dial's failure says nothing.
func TestPlanDialsAgentsWhileConfigurationLoads(t *testing.T) {
	dir := planDir(t, earlyDialConfig)
	meta := withFabric(t, newMemFabric())
	var mu sync.Mutex
	fabrics := map[string]*memFabric{}
	dialled := make(chan string, 16)
	meta.ConnectRemote = func(_ context.Context, a *config.Agent) (*fabricConn, error) {
		mu.Lock()
		defer mu.Unlock()
		dialled <- a.Key
		if a.Key == `agent.h["c"]` {
			return nil, context.DeadlineExceeded // down: it has no objects
		}
		f := fabrics[a.Key]
		if f == nil {
			f = newMemFabric()
			fabrics[a.Key] = f
		}
		return &fabricConn{Refresher: f, Fabric: f, CreateBeforeDestroy: true}, nil
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "2 added") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	for len(dialled) > 0 {
		<-dialled
	}
	seen := map[string]bool{}
	meta.configHook = func(*config.Config) {
		bound := time.After(time.Minute) // a bound, not a synchronisation
		for len(seen) < 3 {
			select {
			case k := <-dialled:
				seen[k] = true
			case <-bound:
				t.Errorf("the configuration is loaded and only %v were dialled: the agents are reached only after it", seen)
				return
			}
		}
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color")
	if code != 0 || !strings.Contains(out, "No changes.") || errs != "" {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	if len(dialled) != 0 {
		t.Errorf("agents dialled again after the configuration loaded: %d more dials", len(dialled))
	}

	// An agent whose early dial failed is dialled again, within its own
	// time: it answers now.
	meta.configHook = nil
	var first sync.Once
	connect := meta.ConnectRemote
	meta.ConnectRemote = func(ctx context.Context, a *config.Agent) (*fabricConn, error) {
		failed := false
		if a.Key == `agent.h["a"]` {
			first.Do(func() { failed = true })
		}
		if failed {
			return nil, context.DeadlineExceeded
		}
		return connect(ctx, a)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after a failed early dial: %d\n%s\n%s", code, out, errs)
	}
}
