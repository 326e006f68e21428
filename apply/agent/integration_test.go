//go:build linux && cgo && integration

package agent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

func probe100ms() *pb.Probe {
	return &pb.Probe{Interval: int64(100 * time.Millisecond), Size: 64, Timeout: int64(2 * time.Second)}
}

func TestEchoListenerAnd100EndpointsWithProbes(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.echo", echoListener(addr, port, 0))
	start := time.Now()
	createEndpoints(t, p, "endpoint.e", 100, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		// A lost probe is not what this test looks for, and three in a
		// row end an endpoint without a reconnect policy: on a loaded
		// host the VM answered 100 endpoints' probes in more than 2 s.
		s.Probe = probe100ms()
		s.Probe.Timeout = int64(30 * time.Second)
		return s
	})
	waitList(t, p, 2*time.Minute, "100 endpoints established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.e["), pb.Status_ESTABLISHED) == 100
	})
	t.Logf("100 endpoints established %v after the first create", time.Since(start).Round(time.Millisecond))
	objs := waitList(t, p, time.Minute, "3 probes answered on every endpoint", func(objs []*pb.Object) bool {
		for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.e[") {
			if o.Probe == nil || o.Probe.Received < 3 {
				return false
			}
		}
		return true
	})
	var minRTT, maxRTT, sumMean int64
	var lost uint64
	for i, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.e[") {
		pr := o.Probe
		if pr.Min <= 0 || pr.Min > pr.Mean || pr.Mean > pr.Max || pr.Last <= 0 {
			t.Errorf("%s: inconsistent probe stats %v", o.Address, pr)
		}
		if o.Facts == nil || o.Facts.QpNum == 0 || o.Facts.QpState != "RTS" || o.Facts.Device != testDevice(t) || o.Facts.RemoteAddr == "" {
			t.Errorf("%s: facts %v", o.Address, o.Facts)
		}
		if i == 0 || pr.Min < minRTT {
			minRTT = pr.Min
		}
		maxRTT = max(maxRTT, pr.Max)
		sumMean += pr.Mean
		lost += pr.Lost
	}
	var lasts []int64
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.e[") {
		lasts = append(lasts, o.Probe.Last)
	}
	slices.Sort(lasts)
	t.Logf("probe round trips over 100 endpoints: min %s, mean of means %s, max %s, lost %d; latest probe per endpoint: median %s, 90th percentile %s",
		ms(minRTT), ms(sumMean/100), ms(maxRTT), lost, ms(lasts[50]), ms(lasts[90]))
	l := byKind(objs, pb.Kind_LISTENER, "listener.echo")[0]
	conns := byKind(objs, pb.Kind_CONNECTION, "listener.echo/conn/")
	if l.Status != pb.Status_LISTENING || l.Connections != 100 || len(conns) != 100 || countStatus(conns, pb.Status_ESTABLISHED) != 100 {
		t.Fatalf("listener %s with %d connections (%d children: %s)", l.Status, l.Connections, len(conns), summary(conns))
	}
	for _, c := range conns {
		if c.Parent != "listener.echo" {
			t.Fatalf("%s has parent %q", c.Address, c.Parent)
		}
	}
	for i := 0; i < 100; i++ {
		r, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: fmt.Sprintf("endpoint.e[%d]", i)})
		if err != nil || !r.Existed {
			t.Fatalf("Delete: %v %v", r, err)
		}
	}
	waitList(t, p, 30*time.Second, "every accepted connection gone", func(objs []*pb.Object) bool {
		return len(byKind(objs, pb.Kind_CONNECTION, "")) == 0 && len(byKind(objs, pb.Kind_ENDPOINT, "")) == 0
	})
	if r, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: "endpoint.e[0]"}); err != nil || r.Existed {
		t.Fatalf("deleting what is gone: %v %v", r, err)
	}
}

func TestMaxConnectionsRejectsTheSurplusWithAReason(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.small", echoListener(addr, port, 5))
	createEndpoints(t, p, "endpoint.m", 8, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	objs := waitList(t, p, time.Minute, "5 established and 3 rejected", func(objs []*pb.Object) bool {
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.m[")
		// The listener counts a reject just after sending it: wait for
		// its tally too.
		l := byKind(objs, pb.Kind_LISTENER, "listener.small")
		return countStatus(eps, pb.Status_ESTABLISHED) == 5 && countStatus(eps, pb.Status_REJECTED) == 3 &&
			len(l) == 1 && l[0].RejectedTotal+l[0].Connections == 8
	})
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.m[") {
		if o.Status != pb.Status_REJECTED {
			continue
		}
		if !strings.Contains(o.RejectReason, "listener.small has reached max_connections = 5") ||
			o.LastError == nil || o.LastError.Call != "rdma_connect" || o.LastError.ErrnoName != "ECONNREFUSED" {
			t.Errorf("%s: reason %q, last error %v", o.Address, o.RejectReason, o.LastError)
		}
	}
	l := byKind(objs, pb.Kind_LISTENER, "listener.small")[0]
	if l.RejectedTotal != 3 || l.Connections != 5 {
		t.Errorf("listener: %d rejected, %d connections", l.RejectedTotal, l.Connections)
	}
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.m[") {
		if o.Status == pb.Status_REJECTED {
			t.Logf("%s was rejected: %s", o.Address, o.LastError.Message)
			break
		}
	}

	// Raise the limit in place, and give the rejected endpoints a
	// reconnect policy in place: they connect.
	if _, err := p.Update(ctxFor(t, time.Minute), &pb.UpdateRequest{Address: "listener.small", SetMaxConnections: true, MaxConnections: 8}); err != nil {
		t.Fatal(err)
	}
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.m[") {
		if o.Status == pb.Status_REJECTED {
			_, err := p.Update(ctxFor(t, time.Minute), &pb.UpdateRequest{Address: o.Address, SetReconnect: true,
				Reconnect: &pb.Reconnect{MinBackoff: int64(50 * time.Millisecond), MaxBackoff: int64(time.Second)}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	waitList(t, p, time.Minute, "8 established after raising max_connections", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.m["), pb.Status_ESTABLISHED) == 8
	})
	_, err := p.Update(ctxFor(t, time.Minute), &pb.UpdateRequest{Address: "listener.small", SetProbe: true, Probe: probe100ms()})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a probe on a listener: %v", err)
	}
}

func reconnectSpec(addr string, port uint32) *pb.EndpointSpec {
	s := endpointSpec(addr, port)
	s.Reconnect = &pb.Reconnect{MinBackoff: int64(100 * time.Millisecond), MaxBackoff: int64(time.Second)}
	s.Probe = probe100ms()
	return s
}

func TestListenerSideKilledThenBack(t *testing.T) {
	addr, port := testAddr(t), freePort()
	server := startAgent(t)
	createListener(t, server, "listener.l", echoListener(addr, port, 0))
	ends := startAgent(t)
	createEndpoints(t, ends, "endpoint.r", 20, func(int) *pb.EndpointSpec { return reconnectSpec(addr, port) })
	createEndpoints(t, ends, "endpoint.once", 5, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	waitList(t, ends, time.Minute, "25 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 25
	})

	server.kill() // a crash: the kernel destroys its ids
	killed := time.Now()
	objs := waitList(t, ends, time.Minute, "every endpoint off established", func(objs []*pb.Object) bool {
		for _, o := range byKind(objs, pb.Kind_ENDPOINT, "") {
			if o.Status == pb.Status_ESTABLISHED || o.Status == pb.Status_DEGRADED {
				return false
			}
		}
		return len(byKind(objs, pb.Kind_ENDPOINT, "endpoint.once[")) == 5 &&
			countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.once["), pb.Status_DISCONNECTED) == 5
	})
	t.Logf("%v after the kill: %s", time.Since(killed).Round(time.Millisecond), summary(objs))
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.r[") {
		sawDisconnect := false
		// By the CM's DISCONNECTED, or first by a probe whose send the
		// dead peer's side failed (remote operation error), which ends the
		// connection too.
		for _, h := range o.History {
			sawDisconnect = sawDisconnect || h.Status == pb.Status_DISCONNECTED
		}
		if !sawDisconnect {
			t.Errorf("%s never reported DISCONNECTED: %v", o.Address, o.History)
		}
	}

	server2 := startAgentAt(t, filepath.Join(filepath.Dir(server.socket), "second", "agent.sock"))
	createListener(t, server2, "listener.l", echoListener(addr, port, 0))
	back := time.Now()
	objs = waitList(t, ends, time.Minute, "the 20 with a reconnect policy established again", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.r["), pb.Status_ESTABLISHED) == 20
	})
	t.Logf("reconnected %v after the listener returned", time.Since(back).Round(time.Millisecond))
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.r[") {
		if o.Reconnects == 0 {
			t.Errorf("%s: no reconnect counted", o.Address)
		}
	}
	if n := countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.once["), pb.Status_DISCONNECTED); n != 5 {
		t.Errorf("%d of the 5 without a reconnect policy stayed disconnected", n)
	}
	if err := ends.terminate(t); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
}

func TestCreateRetriedWithTheSameTokenMakesOneEndpoint(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.t", echoListener(addr, port, 0))
	req := &pb.CreateEndpointRequest{Address: "endpoint.once", Token: "token-1", Spec: endpointSpec(addr, port)}
	var wg sync.WaitGroup
	created := make([]int64, 20)
	for i := range created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := p.CreateEndpoint(ctxFor(t, time.Minute), req)
			if err != nil {
				t.Error(err)
				return
			}
			created[i] = o.CreatedAt
		}()
	}
	wg.Wait()
	for _, c := range created {
		if c != created[0] {
			t.Fatalf("retries returned different objects: created at %v", created)
		}
	}
	waitList(t, p, time.Minute, "one endpoint established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 1
	})
	time.Sleep(500 * time.Millisecond)
	objs := list(t, p)
	if n, c := len(byKind(objs, pb.Kind_ENDPOINT, "")), len(byKind(objs, pb.Kind_CONNECTION, "")); n != 1 || c != 1 {
		t.Fatalf("20 retries made %d endpoints and %d connections", n, c)
	}
	_, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: "endpoint.once", Token: "token-2", Spec: endpointSpec(addr, port)})
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("another token: %v, want AlreadyExists", err)
	}
}

// transition is one recorded event of an object: when and what.
type transition struct {
	at   int64
	name string
	st   pb.Status
}

func TestWatchDeliversEveryTransitionInOrder(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := p.Watch(ctx, &pb.WatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil || !first.Snapshot || len(first.Objects) != 0 || first.Agent.GetPid() != int32(p.pid()) {
		t.Fatalf("first message %v, %v; want an empty snapshot", first, err)
	}
	var mu sync.Mutex
	seen := map[string][]*pb.Object{}
	deleted := map[string]bool{}
	recvDone := make(chan error, 1)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				recvDone <- err
				return
			}
			mu.Lock()
			for _, c := range m.Changes {
				if c.Deleted {
					deleted[c.Object.Address] = true
					continue
				}
				seen[c.Object.Address] = append(seen[c.Object.Address], c.Object)
			}
			mu.Unlock()
		}
	}()

	createListener(t, p, "listener.w", echoListener(addr, port, 0))
	createEndpoints(t, p, "endpoint.w", 10, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		s.Reconnect = &pb.Reconnect{MinBackoff: int64(200 * time.Millisecond), MaxBackoff: int64(400 * time.Millisecond)}
		return s
	})
	waitList(t, p, time.Minute, "10 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.w["), pb.Status_ESTABLISHED) == 10
	})
	if _, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: "listener.w"}); err != nil {
		t.Fatal(err)
	}
	waitListOr(t, p, time.Minute, "every endpoint rejected at least once", dumpHistory, func(objs []*pb.Object) bool {
		for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.w[") {
			if o.RejectReason == "" && !hasEvent(o, "REJECTED") {
				return false
			}
		}
		return true
	})
	createListener(t, p, "listener.w", echoListener(addr, port, 0))
	final := waitList(t, p, time.Minute, "10 established again", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.w["), pb.Status_ESTABLISHED) == 10
	})
	time.Sleep(300 * time.Millisecond) // let the stream catch up
	mu.Lock()
	defer mu.Unlock()
	changes := 0
	for _, o := range byKind(final, pb.Kind_ENDPOINT, "endpoint.w[") {
		got := seen[o.Address]
		changes += len(got)
		// Revisions only grow.
		for i := 1; i < len(got); i++ {
			if got[i].Revision <= got[i-1].Revision {
				t.Errorf("%s: revision %d after %d", o.Address, got[i].Revision, got[i-1].Revision)
			}
		}
		// Every event the object recorded reached the watcher, in order:
		// the distinct (time, event, status) of the changes, in arrival
		// order, are exactly the object's history.
		var watched []transition
		for _, c := range got {
			tr := transition{c.LastEventAt, c.LastEvent, c.Status}
			if len(watched) == 0 || watched[len(watched)-1].at != tr.at || watched[len(watched)-1].name != tr.name {
				watched = append(watched, tr)
			}
		}
		var history []transition
		for _, h := range o.History {
			history = append(history, transition{h.At, h.Name, h.Status})
		}
		if len(o.History) >= 32 {
			t.Fatalf("%s: history full (%d events): the comparison needs all of them", o.Address, len(o.History))
		}
		if fmt.Sprint(watched) != fmt.Sprint(history) {
			t.Errorf("%s:\nwatched %v\nhistory %v", o.Address, names(watched), names(history))
		}
	}
	if !deleted["listener.w"] {
		t.Error("the listener's deletion never reached the watcher")
	}
	t.Logf("10 endpoints: %d changes watched, every recorded transition delivered in order; e.g. %s: %v",
		changes, "endpoint.w[0]", names(historyOf(final, "endpoint.w[0]")))
}

func hasEvent(o *pb.Object, name string) bool {
	for _, h := range o.History {
		if h.Name == name {
			return true
		}
	}
	return false
}

func historyOf(objs []*pb.Object, addr string) []transition {
	for _, o := range objs {
		if o.Address == addr {
			var out []transition
			for _, h := range o.History {
				out = append(out, transition{h.At, h.Name, h.Status})
			}
			return out
		}
	}
	return nil
}

func names(ts []transition) []string {
	out := make([]string, len(ts))
	for i, tr := range ts {
		out[i] = tr.name + "→" + strings.ToLower(tr.st.String())
	}
	return out
}

func TestUnauthorisedPeerIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test runs a client as uid 65534 and must run as root (the testbed does)")
	}
	p := startAgent(t)
	// A copy of this binary that uid 65534 can run.
	bin := filepath.Join(t.TempDir(), "client.test")
	self, _ := os.ReadFile(os.Args[0])
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(bin); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	run := func() (string, error) {
		cmd := exec.Command(bin, "client-info", p.socket)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// With the agent's own modes, the directory keeps others out.
	out, err := run()
	// The client says whose the agent is rather than that none runs (which
	// would have plan start one).
	if err == nil || !strings.Contains(out, "DIAL FAILED") || !strings.Contains(out, "permission denied") || !strings.Contains(out, "belongs to root (uid 0), and you are nobody (uid 65534)") {
		t.Fatalf("uid 65534 through the 0700 directory: %v: %s", err, out)
	}
	t.Logf("uid 65534 with the default modes: %s", strings.TrimSpace(out))
	// Open the modes wide: SO_PEERCRED still refuses the other uid.
	for d := filepath.Dir(p.socket); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	os.Chmod(p.socket, 0o666)
	out, err = run()
	if err == nil || !strings.Contains(out, "DIAL FAILED") || !strings.Contains(out, "belongs to root (uid 0), and you are nobody (uid 65534)") {
		t.Fatalf("uid 65534 with open modes got in: %v: %s", err, out)
	}
	t.Logf("uid 65534 with open modes: %s", strings.TrimSpace(out))
	if log := p.log(t); !strings.Contains(log, `"msg":"refused a client of another user","peer_uid":65534`) {
		t.Errorf("the agent's log lacks the refusal:\n%s", log)
	}
	// Root (this process) is still served.
	if _, err := p.Info(ctxFor(t, 10*time.Second), &pb.InfoRequest{}); err != nil {
		t.Fatalf("root refused: %v", err)
	}
}

func TestSIGTERMLeavesNoCMID(t *testing.T) {
	addr, port := testAddr(t), freePort()
	server := startAgent(t)
	createListener(t, server, "listener.s", echoListener(addr, port, 0))
	ends := startAgent(t)
	createEndpoints(t, ends, "endpoint.s", 20, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		s.Probe = probe100ms()
		return s
	})
	waitList(t, ends, time.Minute, "20 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 20
	})
	// rdma resource show names the thread that made each id, not the
	// process, so ids are matched by the listener's port: the endpoints'
	// ids have it as destination, the listener's and its accepted
	// connections' as source.
	listenerSide := fmt.Sprintf("src-addr %s:%d ", addr, port)
	endpointSide := fmt.Sprintf("dst-addr %s:%d ", addr, port)
	before := cmIDs(t)
	if n, m := len(linesWith(before, endpointSide)), len(linesWith(before, listenerSide)); n != 20 || m != 21 {
		t.Fatalf("rdma resource show cm_id lists %d endpoint ids and %d listener-side ids, want 20 and 21:\n%s", n, m, strings.Join(before, "\n"))
	}
	start := time.Now()
	if err := ends.terminate(t); err != nil {
		t.Fatalf("the endpoints' agent after SIGTERM: %v (want exit 0)", err)
	}
	t.Logf("SIGTERM to exit with 20 endpoints: %v", time.Since(start).Round(time.Millisecond))
	if left := linesWith(cmIDs(t), endpointSide); len(left) > 0 {
		t.Fatalf("endpoint cm_ids left after SIGTERM:\n%s", strings.Join(left, "\n"))
	}
	if !strings.Contains(ends.log(t), `"live_ids":0`) {
		t.Errorf("the agent's log does not report 0 live ids after its teardown")
	}
	// The listener's side saw orderly disconnects.
	waitList(t, server, 30*time.Second, "no accepted connection left", func(objs []*pb.Object) bool {
		return len(byKind(objs, pb.Kind_CONNECTION, "")) == 0
	})
	if err := server.terminate(t); err != nil {
		t.Fatalf("the listener's agent after SIGTERM: %v", err)
	}
	after := cmIDs(t)
	if left := append(linesWith(after, endpointSide), linesWith(after, listenerSide)...); len(left) > 0 {
		t.Fatalf("cm_ids left after SIGTERM:\n%s", strings.Join(left, "\n"))
	}
	t.Logf("rdma resource show cm_id: %d lines before, %d after", len(before), len(after))
}

func dumpHistory(objs []*pb.Object) string {
	var b strings.Builder
	for _, o := range objs {
		if o.Kind == pb.Kind_ENDPOINT {
			fmt.Fprintf(&b, "\n%s %s: ", o.Address, o.Status)
			for _, h := range o.History {
				fmt.Fprintf(&b, "%s(%s) ", h.Name, h.Detail)
			}
			break
		}
	}
	return b.String()
}

// accept.reject_private_data is what a request over max_connections gets
// back instead of the agent's own reason.
func TestMaxConnectionsRejectsWithTheConfiguredPrivateData(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	spec := echoListener(addr, port, 1)
	spec.Accept.RejectPrivateData = []byte("full")
	createListener(t, p, "listener.full", spec)
	createEndpoints(t, p, "endpoint.f", 2, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	objs := waitList(t, p, time.Minute, "1 established and 1 rejected", func(objs []*pb.Object) bool {
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.f[")
		return countStatus(eps, pb.Status_ESTABLISHED) == 1 && countStatus(eps, pb.Status_REJECTED) == 1
	})
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.f[") {
		if o.Status == pb.Status_REJECTED && o.RejectReason != "full" {
			t.Errorf("%s: reject reason %q, want the configured \"full\"", o.Address, o.RejectReason)
		}
	}
}

// An accept the device refuses (responder_resources over rxe0's
// max_qp_rd_atom) leaves its trace on the listener, whose peers see only
// a reject.
func TestFailedAcceptIsRecordedOnTheListener(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	spec := echoListener(addr, port, 0)
	spec.Accept.ResponderResources = 200
	createListener(t, p, "listener.greedy", spec)
	createEndpoints(t, p, "endpoint.g", 1, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	objs := waitList(t, p, time.Minute, "the endpoint refused and the listener's error", func(objs []*pb.Object) bool {
		l := byKind(objs, pb.Kind_LISTENER, "listener.greedy")
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.g[")
		return len(l) == 1 && l[0].LastError != nil && len(eps) == 1 && eps[0].Status != pb.Status_CONNECTING && eps[0].Status != pb.Status_ESTABLISHED
	})
	l := byKind(objs, pb.Kind_LISTENER, "listener.greedy")[0]
	if l.LastError.Call != "rdma_accept" || l.Status != pb.Status_LISTENING {
		t.Errorf("listener: %s, last error %v", l.Status, l.LastError)
	}
}

// A private-data handshake (ucmatose, udaddy) is seen from both sides:
// each accepted connection shows what its client sent with the connect
// request, each endpoint what the listener sent with its accept (RC's
// REP, UD's SIDR reply), without the zeros IB CM messages pad them with.
func TestReceivedPrivateDataOnBothSides(t *testing.T) {
	p := startAgent(t)
	addr := testAddr(t)
	ud := &pb.QP{Type: "ud", MaxSendWr: 4, MaxRecvWr: 4, MaxSendSge: 1, MaxRecvSge: 1}
	for _, c := range []struct {
		name, portSpace string
		qp              *pb.QP
	}{{"rc", "", nil}, {"ud", "udp", ud}} {
		t.Run(c.name, func(t *testing.T) {
			port := freePort()
			listener := "listener." + c.name
			createListener(t, p, listener, &pb.ListenerSpec{Address: addr, Port: port, PortSpace: c.portSpace, Qp: c.qp,
				Accept: &pb.Accept{PrivateData: []byte("srv-accept")}})
			prefix := "endpoint." + c.name
			createEndpoints(t, p, prefix, 2, func(i int) *pb.EndpointSpec {
				return &pb.EndpointSpec{Address: addr, Port: port, PortSpace: c.portSpace, Qp: c.qp,
					Connect: &pb.Connect{PrivateData: []byte(fmt.Sprintf("many-%d", i))}}
			})
			objs := waitList(t, p, time.Minute, "both endpoints established", func(objs []*pb.Object) bool {
				return countStatus(byKind(objs, pb.Kind_ENDPOINT, prefix+"["), pb.Status_ESTABLISHED) == 2
			})
			for _, o := range byKind(objs, pb.Kind_ENDPOINT, prefix+"[") {
				if got := string(o.ReceivedPrivateData); got != "srv-accept" {
					t.Errorf("%s received %q from the listener, want srv-accept", o.Address, got)
				}
			}
			if c.qp != nil {
				// A UD listener answers requests and keeps no connection:
				// it shows the last request's.
				l := byKind(objs, pb.Kind_LISTENER, listener)
				if len(l) != 1 || (string(l[0].ReceivedPrivateData) != "many-0" && string(l[0].ReceivedPrivateData) != "many-1") {
					t.Errorf("the UD listener shows %v, want the last request's private data", l)
				}
				return
			}
			conns := byKind(objs, pb.Kind_CONNECTION, listener+"/conn/")
			var got []string
			for _, o := range conns {
				got = append(got, string(o.ReceivedPrivateData))
			}
			slices.Sort(got)
			if fmt.Sprint(got) != "[many-0 many-1]" {
				t.Errorf("the listener's connections received %q, want many-0 and many-1", got)
			}
		})
	}
}
