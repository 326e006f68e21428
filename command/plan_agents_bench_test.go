//go:build !integration

package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

// BenchmarkNoChangePlanAgents times a no-change `rdmaform plan` of a
// fabric of remote agents (issue 27's goal: 100 agents holding 100
// endpoints each, 10,000 objects, within 1.0 s, and 10 → 100 agents
// within 12×). Each agent is a real `rdmaform agent` process (this test
// binary) serving mutual TLS on a 127.0.0.1 port; the configuration
// declares them with `agent "h" { for_each = ... }` and puts the
// endpoints on them with `agent = agent.h[...]`. As in
// BenchmarkNoChangePlan, only how the objects came to be is not real:
// an apply through in-memory fabrics writes the state, and each agent is
// then given its endpoints, with the same create tokens, through its
// socket. Without RDMA (the host) the endpoints fail with ENODEV, and
// their reconnect policy holds them, trying again in an hour. Each plan
// timed is a separate process: load the configuration, read the state,
// dial every agent, refresh them at once, diff, print "No changes". It
// also times dialling the agents alone (the TLS handshakes, at once, from
// this process) to show their share, and, as a reference measured in the
// same run, BenchmarkNoChangePlan's 10,000 endpoints on one local agent.
//
//	go test -run '^$' -bench NoChangePlanAgents -benchtime 1x .
func BenchmarkNoChangePlanAgents(b *testing.B) {
	for i := 0; i < b.N; i++ {
		small := measureAgentsPlan(b, 10, 100)
		big := measureAgentsPlan(b, 100, 100)
		// The same number of objects on one local agent, in the same run:
		// what the agents add, whatever the host's load.
		one := measureNoChangePlan(b, "10.77.0.1", 10000)
		growth := big.plan.Seconds() / small.plan.Seconds()
		b.ReportMetric(big.plan.Seconds(), "s-at-100-agents")
		b.ReportMetric(growth, "growth-10x")
		for _, m := range []agentsPlanFigures{small, big} {
			fmt.Printf("no-change plan of %d agents over mutual TLS, %d endpoints: %v wall, %v CPU (median of %d processes; goal for 100 agents: 1.0 s; load average %s)\n"+
				"  of which: dialling the %d agents alone (mTLS handshakes, at once) %v; plan -refresh=false %v wall\n"+
				"  the agents' CPU for one plan, all together: %v (on this host, beside the plan's own)\n"+
				"  plan -refresh-only (every object's facts from every agent too): %v wall, the agents' CPU %v\n",
				m.agents, m.objects, m.plan.Round(time.Millisecond), m.planCPU.Round(time.Millisecond), agentsPlanRuns, m.load,
				m.agents, m.dial.Round(time.Millisecond), m.noRefresh.Round(time.Millisecond), m.agentsCPU.Round(time.Millisecond),
				m.refreshOnly.Round(time.Millisecond), m.refreshOnlyAgentsCPU.Round(time.Millisecond))
		}
		fmt.Printf("growth from 10 to 100 agents: %.1fx (goal: at most 12x)\n", growth)
		fmt.Printf("reference, 10,000 endpoints on one local agent (BenchmarkNoChangePlan's): %v wall, %v CPU; 100 agents / one: %.2fx wall, %.2fx CPU\n",
			one.plan.Round(time.Millisecond), one.planCPU.Round(time.Millisecond), big.plan.Seconds()/one.plan.Seconds(), big.planCPU.Seconds()/one.planCPU.Seconds())
	}
}

// agentsPlanRuns is how many plan processes each figure is the median of.
const agentsPlanRuns = 5

type agentsPlanFigures struct {
	agents, objects                int
	plan, planCPU, noRefresh, dial time.Duration
	refreshOnly                    time.Duration // reading every object's facts too
	// The agents' CPU for one plan, all of them together (the median
	// run's share: their total over the runs divided by the runs).
	agentsCPU, refreshOnlyAgentsCPU time.Duration
	load                            string
}

// benchAgent is an agent process of the benchmark.
type benchAgent struct {
	socket, listen, logFile string
	pid                     int
	stop                    func()
}

func measureAgentsPlan(b *testing.B, agents, perAgent int) agentsPlanFigures {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	runDir := b.TempDir()
	ca := pki.NewCA(b, runDir, "ca")
	server := ca.Server(b, "agent", pki.IPs("127.0.0.1"))
	operator := ca.Client(b, "operator")

	procs := startBenchAgents(b, exe, runDir, server, ca, agents)
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()

	dir := filepath.Join(runDir, "cfg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var entries strings.Builder
	byAddress := map[string]*benchAgent{}
	for i, p := range procs {
		fmt.Fprintf(&entries, "    h%03d = %q\n", i, p.listen)
		byAddress[p.listen] = p
	}
	cfg := fmt.Sprintf(`locals {
  agents = {
%s  }
  endpoints = { for p in setproduct(keys(local.agents), range(%d)) : "${p[0]}-${p[1]}" => p[0] }
}

agent "h" {
  for_each = local.agents
  address  = each.value

  tls {
    ca_file   = %q
    cert_file = %q
    key_file  = %q
  }
}

endpoint "e" {
  for_each = local.endpoints
  agent    = agent.h[each.value]
  address  = "10.77.0.1"
  port     = 7999

  # Nothing answers (no RDMA device here): the agent tries again, not
  # soon, so that each endpoint is held, not failed for good (which a
  # plan replaces).
  reconnect {
    min_backoff = "1h"
    max_backoff = "1h"
  }
}
`, entries.String(), perAgent, ca.CertFile, operator.CertFile, operator.KeyFile)
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}

	// The state, as an apply through in-memory fabrics (one per agent)
	// writes it.
	b.Chdir(".")
	meta := withFabric(b, newMemFabric())
	var mu sync.Mutex
	fabrics := map[string]*memFabric{}
	agentOf := map[string]*benchAgent{} // by agent key
	meta.ConnectRemote = func(_ context.Context, a *config.Agent) (*fabricConn, error) {
		mu.Lock()
		defer mu.Unlock()
		f := fabrics[a.Key]
		if f == nil {
			f = newMemFabric()
			fabrics[a.Key] = f
		}
		agentOf[a.Key] = byAddress[a.Address]
		return &fabricConn{Refresher: f, Fabric: f, CreateBeforeDestroy: true}, nil
	}
	var out, errb bytes.Buffer
	code := run([]string{"-chdir=" + dir, "apply", "-auto-approve", "-no-color"}, meta.streams(strings.NewReader(""), &out, &errb))
	if code != 0 {
		b.Fatalf("apply through in-memory fabrics: exit %d\n%s", code, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, state.DefaultPath))
	if err != nil {
		b.Fatal(err)
	}
	st, err := state.Decode(data, state.DefaultPath)
	if err != nil || len(st.Objects) != agents*perAgent {
		b.Fatalf("state after apply: %d objects, %v", len(st.Objects), err)
	}

	// Each agent given its endpoints, all agents at once.
	objectsOf := map[*benchAgent][]*pb.CreateEndpointRequest{}
	for _, o := range st.Objects {
		p := agentOf[o.Agent]
		if p == nil {
			b.Fatalf("%s is on %q, which the apply did not reach", o.Addr, o.Agent)
		}
		objectsOf[p] = append(objectsOf[p], &pb.CreateEndpointRequest{Address: o.Addr.String(), Token: o.Facts.CreateToken,
			Spec: &pb.EndpointSpec{Address: "10.77.0.1", Port: 7999, Reconnect: &pb.Reconnect{MinBackoff: int64(time.Hour), MaxBackoff: int64(time.Hour)}}})
	}
	if err := eachAgent(procs, func(_ int, p *benchAgent) error { return giveEndpoints(p, objectsOf[p]) }); err != nil {
		b.Fatal(err)
	}

	// The agents' endpoints are reconnecting, which the state, written
	// by the in-memory fabrics, does not say: one refresh records it, as
	// the first plan's apply would.
	refresh := exec.Command(exe, "-chdir="+dir, "refresh", "-no-color")
	refresh.Env = append(os.Environ(), asCLIEnv+"=1")
	if out, err := refresh.CombinedOutput(); err != nil {
		b.Fatalf("rdmaform refresh: %v\n%s", err, out)
	}

	f := agentsPlanFigures{agents: agents, objects: agents * perAgent, load: loadAverage()}
	f.dial = medianDial(b, procs, ca.CertFile, operator)
	before := agentsCPUTime(procs)
	f.plan, f.planCPU = medianRun(b, exe, dir, "plan", "-detailed-exitcode", "-no-color")
	f.agentsCPU = (agentsCPUTime(procs) - before) / agentsPlanRuns
	f.noRefresh, _ = medianRun(b, exe, dir, "plan", "-refresh=false", "-detailed-exitcode", "-no-color")
	before = agentsCPUTime(procs)
	f.refreshOnly, _ = medianRun(b, exe, dir, "plan", "-refresh-only", "-detailed-exitcode", "-no-color")
	f.refreshOnlyAgentsCPU = (agentsCPUTime(procs) - before) / agentsPlanRuns
	return f
}

// startBenchAgents starts n agent processes serving mutual TLS on
// 127.0.0.1 ports the kernel picks, and waits until each answers on its
// socket, saying its port. Each is in its own process group, killed with
// it when the benchmark ends or fails (and, with Pdeathsig, when this
// process dies).
func startBenchAgents(b *testing.B, exe, runDir string, server pki.Pair, ca *pki.CA, n int) []*benchAgent {
	b.Helper()
	procs := make([]*benchAgent, n)
	for i := range procs {
		d := filepath.Join(runDir, fmt.Sprintf("agent%03d", i))
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
		p := &benchAgent{socket: filepath.Join(d, "run", "agent.sock"), logFile: filepath.Join(d, "agent.log")}
		cmd := exec.Command(exe, "agent", "-socket="+p.socket, "-log="+p.logFile, "-listen=127.0.0.1:0",
			"-tls-cert="+server.CertFile, "-tls-key="+server.KeyFile, "-tls-client-ca="+ca.CertFile)
		cmd.Env = append(os.Environ(), asCLIEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		outFile, err := os.Create(filepath.Join(d, "agent.out"))
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = outFile, outFile
		if err := cmd.Start(); err != nil {
			outFile.Close()
			b.Fatal(err)
		}
		p.pid = cmd.Process.Pid
		p.stop = sync.OnceFunc(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			outFile.Close()
		})
		b.Cleanup(p.stop)
		procs[i] = p
	}
	err := eachAgent(procs, func(_ int, p *benchAgent) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for {
			c, err := client.Dial(ctx, p.socket)
			if err == nil {
				info, err := c.Info(ctx, &pb.InfoRequest{})
				c.Close()
				if err != nil {
					return err
				}
				if info.Listen == "" {
					return fmt.Errorf("the agent at %s serves no TCP address", p.socket)
				}
				p.listen = info.Listen
				return nil
			}
			if ctx.Err() != nil {
				out, _ := os.ReadFile(filepath.Join(filepath.Dir(p.logFile), "agent.out"))
				return fmt.Errorf("the agent at %s did not answer within 2 minutes: %v\n%s", p.socket, err, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return procs
}

// giveEndpoints creates reqs on p's agent through its socket and waits
// until none is still being created or connecting, so that the plans are
// timed against agents at rest.
func giveEndpoints(p *benchAgent, reqs []*pb.CreateEndpointRequest) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var c *client.Client
	for {
		var err error
		if c, err = client.Dial(ctx, p.socket); err == nil {
			break
		}
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer c.Close()
	r, err := c.CreateEndpoints(ctx, &pb.CreateEndpointsRequest{Endpoints: reqs})
	if err != nil {
		return fmt.Errorf("%s: CreateEndpoints: %v", p.listen, err)
	}
	for i, res := range r.Results {
		if res.Code != 0 {
			return fmt.Errorf("%s: CreateEndpoints %s: %s", p.listen, reqs[i].Address, res.Error)
		}
	}
	for {
		r, err := c.List(ctx, &pb.ListRequest{})
		if err != nil {
			return fmt.Errorf("%s: List: %v", p.listen, err)
		}
		busy := 0
		for _, o := range r.Objects {
			if o.Status == pb.Status_CREATING || o.Status == pb.Status_CONNECTING {
				busy++
			}
		}
		if len(r.Objects) == len(reqs) && busy == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %d of %d endpoints still busy after 5 minutes", p.listen, busy, len(r.Objects))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eachAgent runs do for every agent at once and returns their errors.
func eachAgent(procs []*benchAgent, do func(int, *benchAgent) error) error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = do(i, p)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// medianDial is the median time, of agentsPlanRuns tries, to dial every
// agent at once over mutual TLS (as plan does) until each has answered
// its health check.
func medianDial(b *testing.B, procs []*benchAgent, caFile string, operator pki.Pair) time.Duration {
	b.Helper()
	var times []time.Duration
	for try := 0; try < agentsPlanRuns; try++ {
		clients := make([]*client.Client, len(procs))
		start := time.Now()
		err := eachAgent(procs, func(i int, p *benchAgent) error {
			c, err := client.DialRemote(context.Background(), client.Remote{Address: p.listen, CAFile: caFile, CertFile: operator.CertFile, KeyFile: operator.KeyFile})
			if err != nil {
				return err
			}
			clients[i] = c
			return nil
		})
		times = append(times, time.Since(start))
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return median(times)
}

// medianRun runs the CLI agentsPlanRuns times with args in dir, each
// time requiring "No changes.", and returns the median wall time and
// that run's CPU time.
func medianRun(b *testing.B, exe, dir string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	type run struct{ wall, cpu time.Duration }
	var runs []run
	for try := 0; try < agentsPlanRuns; try++ {
		cmd := exec.Command(exe, append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = append(os.Environ(), asCLIEnv+"=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		w := time.Since(start)
		if err != nil || !strings.Contains(out.String(), "No changes.") || strings.Contains(out.String(), "changed outside") {
			b.Fatalf("rdmaform %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		runs = append(runs, run{w, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].wall < runs[j].wall })
	m := runs[len(runs)/2]
	return m.wall, m.cpu
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// agentsCPUTime is the user and system CPU time the agent processes have
// used so far, from /proc (0 for one that cannot be read).
func agentsCPUTime(procs []*benchAgent) time.Duration {
	var ticks int64
	for _, p := range procs {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
		if err != nil {
			continue
		}
		// The command name, in parentheses, may hold spaces: count the
		// fields after it (utime and stime are the 14th and 15th).
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		for _, s := range f[11:13] {
			n, _ := strconv.ParseInt(s, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is the kernel's USER_HZ, in which /proc reports CPU time:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// loadAverage is the host's load average over the last minute, to read
// the figures by: the benchmark's agents and plans share the host.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
