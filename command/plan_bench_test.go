//go:build !integration

package command

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/state"
)

// BenchmarkNoChangePlan times what a user waits for in
// `rdmaform plan -detailed-exitcode` when nothing changed, at 1,000 and
// 10,000 endpoints (issue 6's goal: 10,000 within 0.5 s, growing
// linearly). Everything is real except how the objects came to be: the
// state file is written by an apply through an in-memory fabric (the real
// executor and state backend), and a real agent process is then given the
// same endpoints, with the same create tokens, through its API. Each plan
// is a separate rdmaform process (this test binary as the CLI) that loads
// the configuration files, locks and reads the state file, refreshes from
// the agent over its socket and prints "No changes". On a host without
// RDMA the agent's endpoints fail (ENODEV) and in the Soft-RoCE VM are
// rejected (nothing listens on their port); either way the agent holds
// them and, with their reconnect policy, will try again in an hour, so a
// plan has nothing to do. It is built without the integration
// tag: the goal is the host's speed, which the VM's emulated CPU is not.
//
//	go test -run '^$' -bench NoChangePlan -benchtime 1x .
func BenchmarkNoChangePlan(b *testing.B) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	if addr == "" {
		addr = "10.77.0.1"
	}
	for i := 0; i < b.N; i++ {
		small := measureNoChangePlan(b, addr, 1000)
		big := measureNoChangePlan(b, addr, 10000)
		growth := big.plan.Seconds() / small.plan.Seconds()
		b.ReportMetric(big.plan.Seconds(), "s-at-10k")
		b.ReportMetric(growth, "growth-10x")
		for _, m := range []noChangeFigures{small, big} {
			fmt.Printf("no-change plan of %d endpoints, agent refresh included: %v wall, %v CPU (best of 3 processes; goal for 10,000: 0.5 s)\n"+
				"  of which: validate (configuration alone) %v wall; plan -refresh=false %v wall\n",
				m.n, m.plan.Round(time.Millisecond), m.planCPU.Round(time.Millisecond), m.validate.Round(time.Millisecond), m.noRefresh.Round(time.Millisecond))
		}
		fmt.Printf("growth from 1,000 to 10,000 endpoints: %.1fx (linear: 10x)\n", growth)
	}
}

type noChangeFigures struct {
	n                                  int
	plan, planCPU, validate, noRefresh time.Duration
}

func measureNoChangePlan(b *testing.B, addr string, n int) noChangeFigures {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	runDir := b.TempDir()
	socket := filepath.Join(runDir, "run", "agent.sock")
	dir := filepath.Join(runDir, "cfg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf(`rdmaform {
  agent {
    socket = %q
  }
}

endpoint "client" {
  count   = %d
  address = %q
  port    = 7999

  qp {
    max_send_wr = 32
  }

  connect {
    private_data = "client-${count.index}"
  }

  # Nothing listens: the agent retries, not soon, so that each endpoint
  # is held and not failed for good (which a plan replaces).
  reconnect {
    min_backoff = "1h"
    max_backoff = "1h"
  }
}
`, socket, n, addr)
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}

	// The state, as an apply writes it.
	b.Chdir(".")
	meta := withFabric(b, newMemFabric())
	var out, errb bytes.Buffer
	code := run([]string{"-chdir=" + dir, "apply", "-auto-approve", "-no-color"}, meta.streams(strings.NewReader(""), &out, &errb))
	if code != 0 {
		b.Fatalf("apply through the in-memory fabric: exit %d\n%s", code, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, state.DefaultPath))
	if err != nil {
		b.Fatal(err)
	}
	st, err := state.Decode(data, state.DefaultPath)
	if err != nil || len(st.Objects) != n {
		b.Fatalf("state after apply: %d objects, %v", len(st.Objects), err)
	}

	// An agent holding the same endpoints.
	agent := exec.Command(exe, "agent", "-socket="+socket, "-log="+filepath.Join(runDir, "agent.log"))
	agent.Env = append(os.Environ(), asCLIEnv+"=1")
	var agentOut bytes.Buffer
	agent.Stdout, agent.Stderr = &agentOut, &agentOut
	if err := agent.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var c *client.Client
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err = client.Dial(ctx, socket); err == nil && c.Check(ctx) == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the agent did not answer: %v\n%s", err, agentOut.String())
		}
	}
	defer c.Close()
	var batch []*pb.CreateEndpointRequest
	flush := func() {
		r, err := c.CreateEndpoints(ctx, &pb.CreateEndpointsRequest{Endpoints: batch})
		if err != nil {
			b.Fatal(err)
		}
		for i, res := range r.Results {
			if res.Code != 0 {
				b.Fatalf("CreateEndpoints %s: %s", batch[i].Address, res.Error)
			}
		}
		batch = batch[:0]
	}
	for _, o := range st.Objects {
		batch = append(batch, &pb.CreateEndpointRequest{Address: o.Addr.String(), Token: o.Facts.CreateToken,
			Spec: &pb.EndpointSpec{Address: addr, Port: 7999}})
		if len(batch) == 500 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	// Wait for the endpoints to settle, so that the plans are timed against
	// an agent at rest.
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		r, err := c.List(ctx, &pb.ListRequest{})
		if err != nil {
			b.Fatal(err)
		}
		busy := 0
		for _, o := range r.Objects {
			if o.Status == pb.Status_CREATING || o.Status == pb.Status_CONNECTING {
				busy++
			}
		}
		if len(r.Objects) == n && busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d endpoints still busy after 5 minutes", busy, len(r.Objects))
		}
	}

	// The agent's endpoints are reconnecting (nothing listens), which the
	// state, written by the in-memory fabric, does not say: one refresh
	// records it, as the first plan's apply would, so that the plans
	// timed find the fabric matching.
	refresh := exec.Command(exe, "-chdir="+dir, "refresh", "-no-color")
	refresh.Env = append(os.Environ(), asCLIEnv+"=1")
	if out, err := refresh.CombinedOutput(); err != nil {
		b.Fatalf("rdmaform refresh: %v\n%s", err, out)
	}

	// Best of three processes for each command.
	best := func(wantOut string, args ...string) (wall, cpu time.Duration) {
		for try := 0; try < 3; try++ {
			cmd := exec.Command(exe, append([]string{"-chdir=" + dir}, args...)...)
			cmd.Env = append(os.Environ(), asCLIEnv+"=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			w := time.Since(start)
			if err != nil || !strings.Contains(out.String(), wantOut) || strings.Contains(out.String(), "changed outside") {
				b.Fatalf("rdmaform %s: %v\n%s", strings.Join(args, " "), err, out.String())
			}
			if c := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); try == 0 || w < wall {
				wall, cpu = w, c
			}
		}
		return wall, cpu
	}
	f := noChangeFigures{n: n}
	f.plan, f.planCPU = best("No changes.", "plan", "-detailed-exitcode", "-no-color")
	f.noRefresh, _ = best("No changes.", "plan", "-refresh=false", "-detailed-exitcode", "-no-color")
	f.validate, _ = best("The configuration is valid", "validate", "-no-color")
	return f
}
