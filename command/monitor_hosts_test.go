package command

import (
	"context"
	"errors"
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
	"github.com/rdmaform/rdmaform/tui"
	"google.golang.org/protobuf/proto"
)

// watchRun is a hostSource's Watch run by a test: its snapshots and
// updates as they come, and its end.
type watchRun struct {
	snapshots chan []tui.Object
	updates   chan tui.Update
	done      chan error
}

func startWatch(t *testing.T, src tui.Source) *watchRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchRun{snapshots: make(chan []tui.Object, 4), updates: make(chan tui.Update, 64), done: make(chan error, 1)}
	go func() {
		w.done <- src.Watch(ctx,
			func(objs []tui.Object, _ tui.AgentInfo) { w.snapshots <- objs },
			func(u tui.Update) { w.updates <- u })
	}()
	t.Cleanup(func() {
		cancel()
		<-w.done
	})
	return w
}

// receiveWithin waits for a value of ch, with a generous bound.
func receiveWithin[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("no %s after 60s", what)
	}
	panic("unreachable")
}

// The monitor's source of one host of a fabric sends its objects; when
// the host falls silent (its packets vanish, the connection stays open)
// the heartbeat ends the watch, saying so, while another host's source
// goes on sending its changes; the host is watched again once it answers.
func TestMonitorHostSourceFindsASilentHost(t *testing.T) {
	t.Parallel()
	p := newFabricPKI(t)
	_, s2, compute := fabricAgents()
	proxy, s2addr := newFreezableProxy(t, p.serve(t, "storage-2", s2))
	source := func(key, addr string) hostSource {
		return hostSource{host: &statusHost{Key: key, Address: addr, agent: p.agent(key, addr)}, beat: defaultHeartbeat}
	}
	silent := source(`agent.storage["s2"]`, s2addr)
	other := startWatch(t, source("agent.compute", p.serve(t, "compute", compute)))
	watch := startWatch(t, silent)
	if objs := receiveWithin(t, "snapshot of storage s2", watch.snapshots); len(objs) != 2 || objs[1].Address != `listener.blocks["s2"]/conn/1` || objs[1].LocalAddr != "10.77.1.2:7471" {
		t.Fatalf("storage s2's snapshot: %+v", objs)
	}
	receiveWithin(t, "snapshot of compute", other.snapshots)

	proxy.freeze()
	err := receiveWithin(t, "end of storage s2's watch", watch.done)
	if !errors.As(err, new(*silentHostError)) || err.Error() != "no answer within 2s (the heartbeat's bound): the host may be down or cut off" {
		t.Fatalf("the silent host's watch ended with %v, want the heartbeat's words", err)
	}
	watch.done <- err // for the cleanup
	degraded := proto.CloneOf(compute.objects[0])
	degraded.Status, degraded.LastEvent = pb.Status_DEGRADED, "probe lost"
	compute.change(degraded)
	if u := receiveWithin(t, "compute's change", other.updates); u.Object.Address != `endpoint.blocks["s1"]` || u.Object.Status != "degraded" {
		t.Errorf("compute's change while storage s2 is silent: %+v", u)
	}

	proxy.thaw()
	again := startWatch(t, silent)
	if objs := receiveWithin(t, "snapshot of storage s2 again", again.snapshots); len(objs) != 2 {
		t.Errorf("storage s2's snapshot once it answers again: %+v", objs)
	}
}

// The monitor of a configuration with agent blocks watches each agent,
// named as status names them, in status's order; without agent blocks,
// the local agent alone, as before.
func TestMonitorHostsOfAFabric(t *testing.T) {
	p := newFabricPKI(t)
	dir := p.configDir(t, "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
	t.Chdir(dir)
	hosts := monitorHosts(Meta{}, "/nonexistent/agent.sock")
	var names []string
	for _, h := range hosts {
		names = append(names, h.Name+" "+h.Target)
	}
	want := []string{"agent.compute 127.0.0.1:3", `agent.storage["s1"] 127.0.0.1:1`, `agent.storage["s2"] 127.0.0.1:2`}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("the monitor's hosts: %q, want %q", names, want)
	}

	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, "main.rdma.hcl"), []byte("listener \"l\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(local)
	if hosts := monitorHosts(Meta{}, "/nonexistent/agent.sock"); hosts != nil {
		t.Errorf("without agent blocks the monitor watches %+v, want the local agent alone", hosts)
	}
}

// In a fabric, the declared objects are every agent's, each with its
// host; without, the local agent's alone.
func TestMonitorDeclaredCoversEveryAgent(t *testing.T) {
	p := newFabricPKI(t)
	dir := p.configDir(t, "127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
	objects := `
listener "blocks" {
  for_each = agent.storage
  agent    = agent.storage[each.key]
  address  = "10.77.1.1"
  port     = 7471
}

endpoint "blocks" {
  for_each = listener.blocks
  agent    = agent.compute
  address  = each.value.address
  port     = each.value.port
}

listener "here" {
  address = "10.77.0.1"
  port    = 7472
}
`
	f, err := os.OpenFile(filepath.Join(dir, "main.rdma.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(objects); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg, diags := newConfigLoader("").Load(dir, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	hosts := map[string]string{}
	for _, d := range declaredObjects(cfg, nil, true) {
		hosts[d.Address] = d.Host
	}
	want := map[string]string{
		`listener.blocks["s1"]`: `agent.storage["s1"]`, `listener.blocks["s2"]`: `agent.storage["s2"]`,
		`endpoint.blocks["s1"]`: "agent.compute", `endpoint.blocks["s2"]`: "agent.compute", "listener.here": "local",
	}
	if len(hosts) != len(want) {
		t.Errorf("declared %v, want %v", hosts, want)
	}
	for a, h := range want {
		if hosts[a] != h {
			t.Errorf("%s declared on %q, want %q", a, hosts[a], h)
		}
	}
	if ds := declaredObjects(cfg, nil, false); len(ds) != 1 || ds[0].Address != "listener.here" || ds[0].Host != "" {
		t.Errorf("the local agent's declared objects: %+v", ds)
	}
}

// Real agents over mutual TLS on 127.0.0.1 (no RDMA device needed: they
// hold nothing): the monitor's sources of a fabric reach both, the third
// host, where nothing listens, is said unreachable in words, and an
// agent that stops ends its host's watch saying so.
func TestMonitorReachesRealAgentsOverMutualTLS(t *testing.T) {
	p := newFabricPKI(t)
	var addrs []string
	var stops []func()
	for _, cn := range []string{"storage-1", "compute"} {
		server := p.ca.Server(t, cn, pki.IPs("127.0.0.1"))
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
		go func() {
			done <- agent.Run(ctx, agent.Options{Socket: filepath.Join(t.TempDir(), "rdmaform", "agent.sock"), Version: "test", Stderr: io.Discard,
				TLS:   agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: p.ca.CertFile},
				Ready: func(info *pb.InfoResponse) { ready <- info }})
		}()
		var once sync.Once
		stop := func() { once.Do(func() { cancel(); <-done }) }
		t.Cleanup(stop)
		stops = append(stops, stop)
		select {
		case info := <-ready:
			addrs = append(addrs, info.Listen)
		case err := <-done:
			t.Fatalf("agent.Run: %v", err)
		}
	}
	// Nothing listens at the second storage host's address.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	t.Chdir(p.configDir(t, addrs[0], closed, addrs[1]))
	hosts := monitorHosts(Meta{}, "/nonexistent/agent.sock")
	if len(hosts) != 3 {
		t.Fatalf("the monitor's hosts: %+v", hosts)
	}
	byName := map[string]*watchRun{}
	for _, h := range hosts {
		byName[h.Name] = startWatch(t, h.Source)
	}
	for _, n := range []string{"agent.compute", `agent.storage["s1"]`} {
		if objs := receiveWithin(t, "snapshot of "+n, byName[n].snapshots); len(objs) != 0 {
			t.Errorf("%s holds %+v, want nothing", n, objs)
		}
	}
	down := receiveWithin(t, "the unreachable host's end", byName[`agent.storage["s2"]`].done)
	byName[`agent.storage["s2"]`].done <- down
	if down == nil || strings.Contains(down.Error(), "rpc error") || !strings.Contains(down.Error(), closed) {
		t.Errorf("the unreachable host: %v, want words naming %s", down, closed)
	}

	stops[1]() // the compute host's agent
	gone := receiveWithin(t, "the stopped agent's end", byName["agent.compute"].done)
	byName["agent.compute"].done <- gone
	if gone == nil || strings.Contains(gone.Error(), "rpc error") {
		t.Errorf("the stopped agent's watch ended with %v, want words", gone)
	}
	t.Logf("unreachable: %v; stopped: %v", down, gone)
}
