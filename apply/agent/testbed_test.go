//go:build linux && cgo && integration

package agent_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// The integration tests run agents as child processes (this test binary
// invoked as `TEST agent -socket=... -log=...`), as rdmaform runs them, so
// that killing one, sending it SIGTERM or removing its device behaves as in
// production, and so that this process never opens an RDMA device (Soft-RoCE
// finishes `rdma link delete` only once every process that opened the
// device has exited). They fail, never skip, without a device.

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(agentMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "client-info" {
		os.Exit(clientInfoMain(os.Args[2]))
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		lim.Cur = lim.Max
		unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
	}
	os.Exit(m.Run())
}

func agentMain(args []string) int {
	fs := flag.NewFlagSet("agent", flag.ExitOnError)
	socket := fs.String("socket", "", "")
	logFile := fs.String("log", "", "")
	metrics := fs.String("metrics", "", "")
	logLevel := fs.String("log-level", "", "")
	leakID := fs.String("leak-id", "", "") // kernelview_integration_test.go
	fs.Parse(args)
	if *leakID != "" {
		leakAnID(*leakID)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// RDMAFORM_AGENT_CPUPROFILE=PREFIX writes each agent's CPU profile to
	// PREFIX.PID, for finding where the benchmarks' time goes; the profile
	// ends when the agent is told to stop, so its teardown is left out.
	if prefix := os.Getenv("RDMAFORM_AGENT_CPUPROFILE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid())); err == nil {
			pprof.StartCPUProfile(f)
			stopped := make(chan struct{})
			go func() { <-ctx.Done(); pprof.StopCPUProfile(); close(stopped) }()
			defer func() { <-stopped }()
		}
	}
	if prefix := os.Getenv("RDMAFORM_AGENT_TRACE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid())); err == nil {
			trace.Start(f)
			defer trace.Stop()
		}
	}
	// RDMAFORM_AGENT_KERNEL_CHECK=DURATION sets the kernel view's period
	// (negative: never), for benchmarks that compare with and without it.
	var kernelCheck time.Duration
	if v := os.Getenv("RDMAFORM_AGENT_KERNEL_CHECK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent: RDMAFORM_AGENT_KERNEL_CHECK:", err)
			return 1
		}
		kernelCheck = d
	}
	if err := agent.Run(ctx, agent.Options{Socket: *socket, LogFile: *logFile, Version: "integration", Metrics: *metrics, LogLevel: *logLevel, KernelCheck: kernelCheck}); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}

// clientInfoMain dials an agent and asks for Info: the unauthorised-peer
// test runs it as another uid.
func clientInfoMain(socket string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		fmt.Println("DIAL FAILED:", err)
		return 3
	}
	defer c.Close()
	info, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		fmt.Println("INFO FAILED:", err)
		return 4
	}
	fmt.Println("INFO OK: pid", info.Pid)
	return 0
}

func testAddr(t testing.TB) string {
	if a := os.Getenv("RDMAFORM_TEST_ADDR"); a != "" {
		return a
	}
	t.Fatal("RDMAFORM_TEST_ADDR is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	return ""
}

func testDevice(t testing.TB) string {
	if d := os.Getenv("RDMAFORM_TEST_DEVICE"); d != "" {
		return d
	}
	t.Fatal("RDMAFORM_TEST_DEVICE is not set (for example rxe0)")
	return ""
}

var nextPort atomic.Uint32

func init() { nextPort.Store(uint32(30000 + os.Getpid()%10000)) }

func freePort() uint32 { return nextPort.Add(1) }

// agentProc is an agent child process and a client connected to it.
type agentProc struct {
	*client.Client
	cmd     *exec.Cmd
	socket  string
	logFile string
	exited  chan struct{}
	waitErr error
}

// startAgent starts an agent with the options of agentMain in extra.
func startAgent(t testing.TB, extra ...string) *agentProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "rdmaform-agent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return startAgentAt(t, filepath.Join(dir, "rdmaform", "agent.sock"), extra...)
}

func startAgentAt(t testing.TB, socket string, extra ...string) *agentProc {
	t.Helper()
	p := &agentProc{socket: socket, logFile: filepath.Join(filepath.Dir(socket), "agent.log"), exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], append([]string{"agent", "-socket=" + socket, "-log=" + p.logFile}, extra...)...)
	stderr, err := os.Create(socket + ".stderr")
	if err == nil {
		p.cmd.Stderr = stderr
	} else {
		os.MkdirAll(filepath.Dir(socket), 0o700)
		stderr, _ = os.Create(socket + ".stderr")
		p.cmd.Stderr = stderr
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.exited) }()
	// Generous: the first agent of a fresh VM initialises librdmacm, and
	// under TCG on a loaded host that took over 20 s once; an agent that
	// exits is seen at once.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := client.Dial(context.Background(), socket)
		if err == nil {
			p.Client = c
			break
		}
		select {
		case <-p.exited:
			b, _ := os.ReadFile(socket + ".stderr")
			t.Fatalf("the agent exited at start: %v\n%s", p.waitErr, b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not answer at %s: %v", socket, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		err := p.terminate(t)
		if t.Failed() || err != nil {
			// What the agent said helps more than the test's view of it.
			b, _ := os.ReadFile(socket + ".stderr")
			t.Logf("agent pid %d exited (%v); its stderr:\n%s", p.pid(), err, crashExcerpt(string(b)))
		}
	})
	return p
}

// crashExcerpt is what of an agent's stderr explains its end: from a Go
// crash's first line (the signal or panic and the crashing goroutine) 60
// lines on, then the last 30 lines; without a crash, the last 80.
func crashExcerpt(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "SIG") {
			head := lines[i:min(len(lines), i+60)]
			if i+60 >= len(lines)-30 {
				return strings.Join(lines[i:], "\n")
			}
			return strings.Join(head, "\n") + "\n...\n" + strings.Join(lines[len(lines)-30:], "\n")
		}
	}
	return strings.Join(lines[max(0, len(lines)-80):], "\n")
}

// terminate sends SIGTERM and waits for the exit; it reports whether the
// agent exited 0.
func (p *agentProc) terminate(t testing.TB) error {
	p.Client.Close()
	select {
	case <-p.exited:
		return p.waitErr
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(90 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("the agent (pid %d) ignored SIGTERM for 90 s", p.cmd.Process.Pid)
	}
	return p.waitErr
}

func (p *agentProc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

func (p *agentProc) pid() int { return p.cmd.Process.Pid }

func (p *agentProc) log(t testing.TB) string {
	b, _ := os.ReadFile(p.logFile)
	return string(b)
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func echoListener(addr string, port uint32, maxConns uint32) *pb.ListenerSpec {
	return &pb.ListenerSpec{Address: addr, Port: port, Accept: &pb.Accept{Echo: true, MaxConnections: maxConns}}
}

func endpointSpec(addr string, port uint32) *pb.EndpointSpec {
	return &pb.EndpointSpec{Address: addr, Port: port}
}

func createListener(t testing.TB, p *agentProc, name string, spec *pb.ListenerSpec) *pb.Object {
	t.Helper()
	o, err := p.CreateListener(ctxFor(t, 30*time.Second), &pb.CreateListenerRequest{Address: name, Token: "tok-" + name, Spec: spec})
	if err != nil {
		t.Fatalf("CreateListener %s: %v", name, err)
	}
	if o.Status != pb.Status_LISTENING {
		t.Fatalf("CreateListener %s returned status %s: %v", name, o.Status, o.LastError)
	}
	return o
}

// createEndpoints creates n endpoints named prefix[i] with a pool of
// concurrent requests.
func createEndpoints(t testing.TB, p *agentProc, prefix string, n int, spec func(i int) *pb.EndpointSpec) {
	t.Helper()
	ctx := ctxFor(t, 5*time.Minute)
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				name := fmt.Sprintf("%s[%d]", prefix, i)
				if _, err := p.CreateEndpoint(ctx, &pb.CreateEndpointRequest{Address: name, Token: "tok-" + name, Spec: spec(i)}); err != nil {
					errs <- fmt.Errorf("CreateEndpoint %s: %w", name, err)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// createBatch creates n endpoints named prefix[i] with CreateEndpoints, in
// batches of 100, four batches in flight.
func createBatch(t testing.TB, p *agentProc, prefix string, n int, spec func(i int) *pb.EndpointSpec) {
	t.Helper()
	ctx := ctxFor(t, 5*time.Minute)
	const size = 100
	starts := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range starts {
				req := &pb.CreateEndpointsRequest{}
				for i := start; i < min(start+size, n); i++ {
					name := fmt.Sprintf("%s[%d]", prefix, i)
					req.Endpoints = append(req.Endpoints, &pb.CreateEndpointRequest{Address: name, Token: "tok-" + name, Spec: spec(i)})
				}
				r, err := p.CreateEndpoints(ctx, req)
				if err != nil {
					errs <- err
					continue
				}
				for i, res := range r.Results {
					if res.Code != 0 || res.Object.GetAddress() != req.Endpoints[i].Address {
						errs <- fmt.Errorf("CreateEndpoints %s: code %d: %s", req.Endpoints[i].Address, res.Code, res.Error)
					}
				}
			}
		}()
	}
	for start := 0; start < n; start += size {
		starts <- start
	}
	close(starts)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func list(t testing.TB, p *agentProc) []*pb.Object {
	t.Helper()
	r, err := p.List(ctxFor(t, time.Minute), &pb.ListRequest{WithHistory: true})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return r.Objects
}

// waitList polls List until ok says so, failing with the last state after
// timeout.
func waitList(t testing.TB, p *agentProc, timeout time.Duration, what string, ok func([]*pb.Object) bool) []*pb.Object {
	t.Helper()
	return waitListOr(t, p, timeout, what, func([]*pb.Object) string { return "" }, ok)
}

// waitListOr is waitList with more to say on failure.
func waitListOr(t testing.TB, p *agentProc, timeout time.Duration, what string, more func([]*pb.Object) string, ok func([]*pb.Object) bool) []*pb.Object {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		objs := list(t, p)
		if ok(objs) {
			return objs
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still not %s: %s%s", timeout, what, summary(objs), more(objs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// byKind selects objects of a kind whose address has the prefix.
func byKind(objs []*pb.Object, kind pb.Kind, prefix string) []*pb.Object {
	var out []*pb.Object
	for _, o := range objs {
		if o.Kind == kind && strings.HasPrefix(o.Address, prefix) {
			out = append(out, o)
		}
	}
	return out
}

func countStatus(objs []*pb.Object, st pb.Status) int {
	n := 0
	for _, o := range objs {
		if o.Status == st {
			n++
		}
	}
	return n
}

// summary counts objects by kind and status, with one example error.
func summary(objs []*pb.Object) string {
	counts := map[string]int{}
	example := ""
	for _, o := range objs {
		counts[agent.KindWord(o.Kind)+" "+agent.StatusWord(o.Status)]++
		if o.LastError != nil && example == "" {
			example = fmt.Sprintf("; e.g. %s: %s (%s)", o.Address, o.LastError.Message, o.LastError.ErrnoName)
		}
	}
	return fmt.Sprintf("%v%s", counts, example)
}

// cmIDs runs `rdma resource show cm_id` and returns its lines.
func cmIDs(t testing.TB) []string {
	out, err := exec.Command("rdma", "resource", "show", "cm_id").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show cm_id: %v: %s", err, out)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

func linesWith(lines []string, s string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l+" ", s) {
			out = append(out, l)
		}
	}
	return out
}

func ms(d int64) string { return (time.Duration(d)).Round(time.Microsecond).String() }
