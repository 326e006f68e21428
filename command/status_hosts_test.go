package command

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/config"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
)

// hostAgent is a fake agent of one host, served over mutual TLS as a
// real remote agent is: its objects (which a test may change, reaching
// its watchers) and its Info.
type hostAgent struct {
	pb.UnimplementedAgentServer
	mu       sync.Mutex
	objects  []*pb.Object
	info     *pb.InfoResponse
	watchers map[chan []*pb.Change]bool
}

func (f *hostAgent) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return f.info, nil
}

func (f *hostAgent) List(context.Context, *pb.ListRequest) (*pb.ListResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &pb.ListResponse{Objects: f.objects, Agent: f.info}, nil
}

func (f *hostAgent) Watch(_ *pb.WatchRequest, stream grpc.ServerStreamingServer[pb.WatchResponse]) error {
	ch := make(chan []*pb.Change, 16)
	f.mu.Lock()
	snapshot := append([]*pb.Object(nil), f.objects...)
	f.watchers[ch] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.watchers, ch)
		f.mu.Unlock()
	}()
	if err := stream.Send(&pb.WatchResponse{Snapshot: true, Objects: snapshot, Agent: f.info}); err != nil {
		return err
	}
	for {
		select {
		case <-stream.Context().Done():
			return nil
		case chs := <-ch:
			if err := stream.Send(&pb.WatchResponse{Changes: chs}); err != nil {
				return err
			}
		}
	}
}

// change replaces the object of o's address and tells the watchers.
func (f *hostAgent) change(o *pb.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, old := range f.objects {
		if old.Address == o.Address {
			f.objects[i] = o
		}
	}
	for ch := range f.watchers {
		ch <- []*pb.Change{{Object: o}}
	}
}

// fabricPKI is a CA, a client certificate for the CLI and the agents'
// server certificates, for 127.0.0.1.
type fabricPKI struct {
	ca   *pki.CA
	user pki.Pair
}

func newFabricPKI(t *testing.T) *fabricPKI {
	ca := pki.NewCA(t, t.TempDir(), "ca")
	return &fabricPKI{ca: ca, user: ca.Client(t, "operator")}
}

// serve serves f over mutual TLS on 127.0.0.1 with a certificate for cn,
// and returns its address.
func (p *fabricPKI) serve(t *testing.T, cn string, f *hostAgent) string {
	t.Helper()
	server := p.ca.Server(t, cn, pki.IPs("127.0.0.1"))
	pair, err := tls.LoadX509KeyPair(server.CertFile, server.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(p.ca.Cert)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.info = &pb.InfoResponse{Pid: 4242, Listen: l.Addr().String(), CertificateSubject: server.Cert.Subject.String(), CertificateNotAfter: server.Cert.NotAfter.UnixNano()}
	if f.watchers == nil {
		f.watchers = map[chan []*pb.Change]bool{}
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool})))
	h := health.NewServer()
	h.SetServingStatus("rdmaform.agent.v1.Agent", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, h)
	pb.RegisterAgentServer(srv, f)
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

// agent is an agent block's instance reaching addr with the test's files.
func (p *fabricPKI) agent(key, addr string) *config.Agent {
	return &config.Agent{Key: key, Address: addr, TLS: config.AgentTLS{CAFile: p.ca.CertFile, CertFile: p.user.CertFile, KeyFile: p.user.KeyFile}}
}

// configDir is a configuration directory with the agent blocks of the
// storage hosts s1 and s2 and the compute host, at their addresses.
func (p *fabricPKI) configDir(t *testing.T, s1, s2, compute string) string {
	t.Helper()
	tlsBlock := fmt.Sprintf("  tls {\n    ca_file   = %q\n    cert_file = %q\n    key_file  = %q\n  }\n", p.ca.CertFile, p.user.CertFile, p.user.KeyFile)
	hcl := fmt.Sprintf("agent \"storage\" {\n  for_each = { s1 = %q, s2 = %q }\n  address  = each.value\n%s}\n\nagent \"compute\" {\n  address = %q\n%s}\n",
		s1, s2, tlsBlock, compute, tlsBlock)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fabricAgents are the fake agents of a fabric of three hosts: the compute
// host's endpoints reach a listener on each storage host, which accepted
// their connections.
func fabricAgents() (s1, s2, compute *hostAgent) {
	endpoint := func(name, local, remote string, qp uint32, rtt time.Duration) *pb.Object {
		return &pb.Object{Address: name, Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, LastEvent: "ESTABLISHED",
			Facts: &pb.Facts{LocalAddr: local, RemoteAddr: remote, Device: "rxe0", Port: 1, QpNum: qp, QpType: "rc", QpState: "RTS"},
			Probe: &pb.ProbeStats{Last: int64(rtt), Sent: 5, Received: 5}}
	}
	listener := func(name, addr string) *pb.Object {
		return &pb.Object{Address: name, Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, Facts: &pb.Facts{LocalAddr: addr, Device: "rxe0", Port: 1}}
	}
	conn := func(name, listener, local, remote string, qp uint32) *pb.Object {
		return &pb.Object{Address: name, Parent: listener, Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED, LastEvent: "ESTABLISHED",
			Facts: &pb.Facts{LocalAddr: local, RemoteAddr: remote, Device: "rxe0", Port: 1, QpNum: qp, QpType: "rc", QpState: "RTS"}}
	}
	s1 = &hostAgent{objects: []*pb.Object{
		listener(`listener.blocks["s1"]`, "10.77.1.1:7471"),
		conn(`listener.blocks["s1"]/conn/3`, `listener.blocks["s1"]`, "10.77.1.1:7471", "10.77.1.3:40001", 33),
	}}
	s2 = &hostAgent{objects: []*pb.Object{
		listener(`listener.blocks["s2"]`, "10.77.1.2:7471"),
		conn(`listener.blocks["s2"]/conn/1`, `listener.blocks["s2"]`, "10.77.1.2:7471", "10.77.1.3:40002", 51),
	}}
	compute = &hostAgent{objects: []*pb.Object{
		endpoint(`endpoint.blocks["s1"]`, "10.77.1.3:40001", "10.77.1.1:7471", 17, 142*time.Microsecond),
		endpoint(`endpoint.blocks["s2"]`, "10.77.1.3:40002", "10.77.1.2:7471", 18, 95*time.Microsecond),
	}}
	return s1, s2, compute
}

// status of a configuration with agent blocks reaches every agent over
// mutual TLS and shows each object with its host, each link once with
// both ends and its round trip, and each host with its certificate.
func TestStatusShowsTheWholeFabric(t *testing.T) {
	p := newFabricPKI(t)
	s1, s2, compute := fabricAgents()
	dir := p.configDir(t, p.serve(t, "storage-1", s1), p.serve(t, "storage-2", s2), p.serve(t, "compute", compute))
	t.Chdir(".")
	code, out, errs := Meta{}.cmd(t, dir, "", "status")
	if code != 0 || errs != "" {
		t.Fatalf("status: exit %d\n%s%s", code, out, errs)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && strings.HasPrefix(f[0], "agent.") && strings.Contains(f[1], ".") {
			rows[f[1]] = f[0] + " " + f[3]
		}
	}
	for addr, want := range map[string]string{
		`endpoint.blocks["s1"]`:        "agent.compute established",
		`listener.blocks["s1"]`:        `agent.storage["s1"] listening`,
		`listener.blocks["s1"]/conn/3`: `agent.storage["s1"] established`,
		`listener.blocks["s2"]/conn/1`: `agent.storage["s2"] established`,
	} {
		if rows[addr] != want {
			t.Errorf("row of %s: %q, want %q\n%s", addr, rows[addr], want, out)
		}
	}
	for _, want := range []string{
		"HOST                 ADDRESS",
		"\nLinks:\n",
		`endpoint.blocks["s1"] (agent.compute)  ⇄ listener.blocks["s1"] conn/3 (agent.storage["s1"])  established  rtt 142µs`,
		`endpoint.blocks["s2"] (agent.compute)  ⇄ listener.blocks["s2"] conn/1 (agent.storage["s2"])  established  rtt 95µs`,
		"\nHosts:\n",
		"CN=storage-1, certificate expires ",
		"6 objects: 4 established, 2 listening\n3 hosts: 3 reachable; 2 links: 2 established\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = Meta{}.cmd(t, dir, "", "status", "-json")
	if code != 0 || errs != "" {
		t.Fatalf("status -json: exit %d\n%s%s", code, out, errs)
	}
	var doc struct {
		Objects []struct {
			Host, Address, Status string
		}
		Hosts []struct {
			Host, Address, Error                    string
			Reachable                               bool
			CertificateSubject, CertificateNotAfter string
			Agent                                   struct{ Pid int }
		}
		Links []struct {
			Status, Reason string
			RTTNs          int64 `json:"rttNs"`
			Endpoint       struct {
				Host, Address, Local, Remote string
				QPNum                        uint32 `json:"qpNum"`
			}
			Accepted *struct {
				Host, Address, Listener, Local, Remote string
				QPNum                                  uint32 `json:"qpNum"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("status -json: %v\n%s", err, out)
	}
	if len(doc.Objects) != 6 || doc.Objects[0].Host == "" {
		t.Errorf("objects: %+v", doc.Objects)
	}
	for _, o := range doc.Objects {
		if o.Address == `listener.blocks["s2"]/conn/1` && o.Host != `agent.storage["s2"]` {
			t.Errorf("conn/1's host: %+v", o)
		}
	}
	if len(doc.Hosts) != 3 || doc.Hosts[0].Host != "agent.compute" || !doc.Hosts[0].Reachable || doc.Hosts[0].Agent.Pid != 4242 ||
		doc.Hosts[0].CertificateSubject != "CN=compute" || doc.Hosts[0].CertificateNotAfter == "" {
		t.Errorf("hosts: %+v", doc.Hosts)
	}
	if len(doc.Links) != 2 {
		t.Fatalf("links: %+v", doc.Links)
	}
	l := doc.Links[0]
	if l.Status != "established" || l.RTTNs != 142000 || l.Endpoint.Host != "agent.compute" || l.Endpoint.QPNum != 17 || l.Endpoint.Local != "10.77.1.3:40001" ||
		l.Accepted == nil || l.Accepted.Host != `agent.storage["s1"]` || l.Accepted.Address != `listener.blocks["s1"]/conn/3` ||
		l.Accepted.Listener != `listener.blocks["s1"]` || l.Accepted.QPNum != 33 || l.Accepted.Remote != "10.77.1.3:40001" {
		t.Errorf("first link: %+v", l)
	}
}

// silentListener accepts connections and never answers, as a host
// whose agent hangs; closing it closes them.
func silentListener(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// A host whose agent does not answer is shown so, with why, and its
// links unknown; the other hosts are shown as they are, and status exits
// 1 naming it.
func TestStatusShowsAHostThatDoesNotAnswer(t *testing.T) {
	p := newFabricPKI(t)
	s1, _, compute := fabricAgents()
	dir := p.configDir(t, p.serve(t, "storage-1", s1), silentListener(t), p.serve(t, "compute", compute))
	t.Chdir(".")
	code, out, errs := Meta{}.cmd(t, dir, "", "status")
	if code != 1 || !strings.Contains(errs, `1 of 3 agents could not be reached: agent.storage["s2"]`) || strings.Contains(errs, "rpc error") {
		t.Errorf("status: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		`endpoint.blocks["s1"] (agent.compute)  ⇄ listener.blocks["s1"] conn/3 (agent.storage["s1"])  established  rtt 142µs`,
		`endpoint.blocks["s2"] (agent.compute)  ⇄ ? 10.77.1.2:7471`,
		`unknown      its listener at 10.77.1.2:7471 may be on agent.storage["s2"], which does not answer`,
		`agent.storage["s2"]  127.0.0.1:`,
		"unreachable: no rdmaform agent answers at 127.0.0.1:",
		"3 hosts: 2 reachable, 1 unreachable; 2 links: 1 established, 1 unknown\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = Meta{}.cmd(t, dir, "", "status", "-json")
	var doc struct {
		Hosts []struct {
			Host, Error string
			Reachable   bool
		}
		Links []struct{ Status string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 {
		t.Fatalf("status -json: exit %d, %v\n%s", code, err, out)
	}
	if h := doc.Hosts[2]; h.Host != `agent.storage["s2"]` || h.Reachable || !strings.Contains(h.Error, "no rdmaform agent answers") {
		t.Errorf("the silent host in -json: %+v", h)
	}
	if len(doc.Links) != 2 || doc.Links[1].Status != "unknown" {
		t.Errorf("links in -json: %+v", doc.Links)
	}
}

// Without agent blocks, status is the local agent's table, byte for byte.
func TestStatusWithoutAgentBlocksIsTheLocalTable(t *testing.T) {
	_, _, compute := fabricAgents()
	socket := serveLocalAgent(t, compute)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte("listener \"l\" {\n  address = \"10.77.1.1\"\n  port    = 7471\n}\n"), 0o644)
	t.Chdir(".")
	code, out, errs := Meta{}.cmd(t, dir, "", "status", "-agent="+socket)
	var want strings.Builder
	writeStatusTable(&want, compute.objects)
	if code != 0 || errs != "" || out != want.String() {
		t.Errorf("status: exit %d, stderr %q\n%s\nwant\n%s", code, errs, out, want.String())
	}
}

// serveLocalAgent serves f on a unix socket, as the local agent.
func serveLocalAgent(t *testing.T, f *hostAgent) string {
	t.Helper()
	f.watchers = map[chan []*pb.Change]bool{}
	f.info = &pb.InfoResponse{Pid: 77}
	socket := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	h := health.NewServer()
	h.SetServingStatus("rdmaform.agent.v1.Agent", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, h)
	pb.RegisterAgentServer(srv, f)
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return socket
}

// Objects without an agent are the local agent's: with agent blocks, it
// is a host of the fabric too, "local", its links shown as the others'.
func TestStatusShowsTheLocalAgentAsAHost(t *testing.T) {
	p := newFabricPKI(t)
	s1, _, compute := fabricAgents()
	socket := serveLocalAgent(t, s1)
	tlsBlock := fmt.Sprintf("  tls {\n    ca_file   = %q\n    cert_file = %q\n    key_file  = %q\n  }\n", p.ca.CertFile, p.user.CertFile, p.user.KeyFile)
	hcl := fmt.Sprintf("agent \"compute\" {\n  address = %q\n%s}\n\nlistener \"blocks\" {\n  address = \"10.77.1.1\"\n  port    = 7471\n}\n", p.serve(t, "compute", compute), tlsBlock)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(hcl), 0o644)
	t.Chdir(".")
	code, out, errs := Meta{}.cmd(t, dir, "", "status", "-agent="+socket)
	if code != 0 || errs != "" {
		t.Fatalf("status: exit %d\n%s%s", code, out, errs)
	}
	var localRow, localHost bool
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		localRow = localRow || len(f) > 2 && f[0] == "local" && f[1] == `listener.blocks["s1"]/conn/3` && f[3] == "established"
		localHost = localHost || strings.Join(f, " ") == "local "+socket+" pid 77"
	}
	if !localRow || !localHost {
		t.Errorf("the local agent's row %v, its host line %v:\n%s", localRow, localHost, out)
	}
	if want := `endpoint.blocks["s1"] (agent.compute)  ⇄ listener.blocks["s1"] conn/3 (local)  established  rtt 142µs`; !strings.Contains(out, want) {
		t.Errorf("status lacks %q:\n%s", want, out)
	}
}

// freezableProxy forwards TCP connections to an agent until frozen: then
// it passes nothing on, in either direction, and connects new ones to
// nothing, as a host powered off (no FIN, no RST: packets vanish), until
// thawed.
type freezableProxy struct {
	target string
	mu     sync.Mutex
	thawed chan struct{} // nil while not frozen
}

func newFreezableProxy(t *testing.T, target string) (*freezableProxy, string) {
	p := &freezableProxy{target: target}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				p.gate()
				b, err := net.Dial("tcp", p.target)
				if err != nil {
					c.Close()
					return
				}
				go p.pipe(b, c)
				p.pipe(c, b)
			}()
		}
	}()
	t.Cleanup(func() { p.thaw(); l.Close() })
	return p, l.Addr().String()
}

// gate waits while the proxy is frozen.
func (p *freezableProxy) gate() {
	p.mu.Lock()
	ch := p.thawed
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (p *freezableProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.gate()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			dst.Close()
			src.Close()
			return
		}
	}
}

func (p *freezableProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed == nil {
		p.thawed = make(chan struct{})
	}
}

func (p *freezableProxy) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed != nil {
		close(p.thawed)
		p.thawed = nil
	}
}

// lines is a writer whose text a test waits on.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits, with a generous bound, until a line after from holds
// every want, and returns where the text ends then.
func (l *lines) waitFor(t *testing.T, from int, want ...string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := l.String()
		found := 0
		for _, line := range strings.Split(s[from:], "\n") {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				found++
			}
		}
		if found > 0 {
			return len(s)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q after 60s; the watch printed:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// status -watch of a fabric: a host that falls silent (its packets
// vanish, the connection stays open) is shown unreachable because the
// heartbeat's bound passed, its link unknown, while the other hosts'
// changes go on being shown; once it answers again, it is said, and its
// link is established again.
func TestStatusWatchShowsASilentHostUnreachableAndBack(t *testing.T) {
	t.Parallel()
	p := newFabricPKI(t)
	s1, s2, compute := fabricAgents()
	proxy, s2addr := newFreezableProxy(t, p.serve(t, "storage-2", s2))
	hosts := []*statusHost{
		{Key: "agent.compute", Address: p.serve(t, "compute", compute)},
		{Key: `agent.storage["s1"]`, Address: p.serve(t, "storage-1", s1)},
		{Key: `agent.storage["s2"]`, Address: s2addr},
	}
	for _, h := range hosts {
		h.agent = p.agent(h.Key, h.Address)
	}
	fetchHosts(hosts, nil)
	for _, h := range hosts {
		if h.Err != nil {
			t.Fatalf("%s: %v", h.Key, h.Err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	out := &lines{}
	go func() {
		defer close(done)
		watchFabric(ctx, hosts, nil, out, defaultHeartbeat)
	}()
	t.Cleanup(func() { cancel(); <-done })

	proxy.freeze()
	out.waitFor(t, 0, `agent.storage["s2"]`, "unreachable: no answer within 2s (the heartbeat's bound)")
	at := out.waitFor(t, 0, "link", `endpoint.blocks["s2"] (agent.compute) ⇄ listener.blocks["s2"] conn/1 (agent.storage["s2"])  unknown`)

	// The others go on.
	degraded := proto.CloneOf(compute.objects[0])
	degraded.Status, degraded.LastEvent = pb.Status_DEGRADED, "probe lost"
	compute.change(degraded)
	out.waitFor(t, at, "agent.compute", `endpoint.blocks["s1"]`, "degraded", "probe lost")
	out.waitFor(t, at, "link", `endpoint.blocks["s1"] (agent.compute)`, "degraded")

	at = len(out.String())
	proxy.thaw()
	out.waitFor(t, at, `agent.storage["s2"]`, "answers again")
	out.waitFor(t, at, "link", `endpoint.blocks["s2"] (agent.compute) ⇄ listener.blocks["s2"] conn/1 (agent.storage["s2"])  established`)
}

// Real agents over mutual TLS (no RDMA device needed: they hold nothing):
// status reaches both and shows each one's certificate.
func TestStatusReachesRealAgentsOverMutualTLS(t *testing.T) {
	p := newFabricPKI(t)
	var addrs []string
	for _, cn := range []string{"storage-1", "storage-2", "compute"} {
		server := p.ca.Server(t, cn, pki.IPs("127.0.0.1"))
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
		go func() {
			done <- agent.Run(ctx, agent.Options{Socket: filepath.Join(t.TempDir(), "rdmaform", "agent.sock"), Version: "test", Stderr: io.Discard,
				TLS:   agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: p.ca.CertFile},
				Ready: func(info *pb.InfoResponse) { ready <- info }})
		}()
		t.Cleanup(func() { cancel(); <-done })
		select {
		case info := <-ready:
			addrs = append(addrs, info.Listen)
		case err := <-done:
			t.Fatalf("agent.Run: %v", err)
		}
	}
	dir := p.configDir(t, addrs[0], addrs[1], addrs[2])
	t.Chdir(".")
	code, out, errs := Meta{}.cmd(t, dir, "", "status")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "The agents hold no objects.\n") || !strings.HasSuffix(out, "\n3 hosts: 3 reachable\n") {
		t.Fatalf("status: exit %d\n%s%s", code, out, errs)
	}
	for i, cn := range []string{"storage-1", "storage-2", "compute"} {
		if !strings.Contains(out, addrs[i]+"  pid ") || !strings.Contains(out, "CN="+cn+", certificate expires ") {
			t.Errorf("status lacks %s's host line:\n%s", cn, out)
		}
	}
}
