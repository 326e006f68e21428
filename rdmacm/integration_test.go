//go:build linux && cgo && integration

package rdmacm

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestDevicesListsTheTestDevice(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	name := testDevice(t)
	for _, d := range devs {
		if d.Name != name {
			continue
		}
		t.Logf("%s: guid %s node %s transport %s ports %+v limits %+v", d.Name, d.GUID, d.NodeType, d.Transport, d.Ports, d.Limits)
		if len(d.Ports) == 0 || d.Ports[0].State != "PORT_ACTIVE" {
			t.Errorf("%s port 1 is not PORT_ACTIVE: %+v", name, d.Ports)
		}
		if d.Ports[0].LinkLayer != "Ethernet" && d.Ports[0].LinkLayer != "InfiniBand" {
			t.Errorf("%s link layer %q", name, d.Ports[0].LinkLayer)
		}
		l := d.Limits
		if l.MaxQP <= 0 || l.MaxQPWR <= 0 || l.MaxSGE <= 0 || l.MaxCQE <= 0 || l.MaxMR <= 0 || l.MaxPD <= 0 {
			t.Errorf("%s limits not all positive: %+v", name, l)
		}
		if len(d.GUID) != 19 || d.GUID == "0000:0000:0000:0000" {
			t.Errorf("%s GUID %q", name, d.GUID)
		}
		return
	}
	t.Fatalf("device %s not in %+v", name, devs)
}

func TestProtectionDomains(t *testing.T) {
	pd, err := AllocPD(testDevice(t))
	if err != nil {
		t.Fatalf("AllocPD: %v", err)
	}
	ch := newChannel(t)
	qp := DefaultQPInit()
	ai := addrInfo(t, testAddr(t), freePort(), Hints{Flags: Passive | NumericHost, PortSpace: PSTCP, QPType: RC})
	l, err := CreateEP(ai, pd, &qp, ch)
	if err != nil {
		t.Fatalf("CreateEP with a PD: %v", err)
	}
	_, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	active := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	id, err := CreateEP(active, pd, &qp, ch)
	if err != nil {
		t.Fatalf("CreateEP(active) with a PD: %v", err)
	}
	if err := pd.Close(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("closing a PD in use: %v, want EBUSY", err)
	}
	id.Close()
	l.Close()
	if err := pd.Close(); err != nil {
		t.Errorf("closing the PD after its ids: %v", err)
	}
	if err := pd.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := AllocPD("nosuchdev9"); !errors.Is(err, syscall.ENODEV) || !strings.Contains(err.Error(), "ibv_alloc_pd(nosuchdev9)") {
		t.Errorf("AllocPD on a missing device: %v", err)
	}
}

// rcPair establishes one RC connection through the listener and returns
// both ids, checking both sides see ESTABLISHED.
func rcPair(t *testing.T, node string, privateData []byte) (client, server *ID) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, node, PSTCP, &qp)
	client = dial(t, ch, node, port, PSTCP, &qp)
	ctx := ctxFor(t, 20*time.Second)

	accepted := make(chan error, 1)
	go func() {
		req, ev, err := l.GetRequest(ctx)
		if err != nil {
			accepted <- err
			return
		}
		server = req
		t.Cleanup(func() { req.Close() })
		if !bytes.HasPrefix(ev.PrivateData, privateData) {
			accepted <- errors.New("connect request lost its private data")
			return
		}
		accepted <- req.Accept(ctx, ConnParam{PrivateData: []byte("welcome")})
	}()
	ev, err := client.Connect(ctx, ConnParam{PrivateData: privateData, RetryCount: 7, RNRRetryCount: 7})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if err := <-accepted; err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if !bytes.HasPrefix(ev.PrivateData, []byte("welcome")) {
		t.Errorf("ESTABLISHED carries %q, want the accept's private data", ev.PrivateData)
	}
	return client, server
}

func exchange(t *testing.T, from, to *ID, msg string) {
	ctx := ctxFor(t, 10*time.Second)
	sendBuf, err := from.RegisterBuffer(64)
	if err != nil {
		t.Fatalf("RegisterBuffer: %v", err)
	}
	defer sendBuf.Close()
	recvBuf, err := to.RegisterBuffer(64)
	if err != nil {
		t.Fatalf("RegisterBuffer: %v", err)
	}
	defer recvBuf.Close()
	if err := to.PostRecv(recvBuf, 7); err != nil {
		t.Fatalf("PostRecv: %v", err)
	}
	if err := sendBuf.Store([]byte(msg)); err != nil {
		t.Fatalf("Store: %v", err)
	}
	if err := from.PostSend(sendBuf, len(msg), 9); err != nil {
		t.Fatalf("PostSend: %v", err)
	}
	if c, err := from.WaitSend(ctx); err != nil || c.WRID != 9 {
		t.Fatalf("WaitSend: %+v, %v", c, err)
	}
	c, err := to.WaitRecv(ctx)
	if err != nil || c.WRID != 7 || c.Bytes != len(msg) {
		t.Fatalf("WaitRecv: %+v, %v", c, err)
	}
	if got, err := recvBuf.Load(c.Bytes); err != nil || string(got) != msg {
		t.Fatalf("received %q (%v), want %q", got, err, msg)
	}
}

func testRCPair(t *testing.T, node string) {
	client, server := rcPair(t, node, []byte("hello"))
	cf, err := client.Facts()
	if err != nil {
		t.Fatal(err)
	}
	sf, err := server.Facts()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client %+v", cf)
	t.Logf("server %+v", sf)
	want := netip.MustParseAddr(node)
	if cf.Remote.Addr() != want || sf.Local.Addr() != want || cf.Remote.Port() != sf.Local.Port() {
		t.Errorf("addresses: client remote %v, server local %v", cf.Remote, sf.Local)
	}
	if cf.Local.Port() == 0 || cf.Local.Port() != sf.Remote.Port() {
		t.Errorf("ports: client local %v, server remote %v", cf.Local, sf.Remote)
	}
	if cf.QPState != "RTS" || sf.QPState != "RTS" || cf.QPNum == 0 || cf.QPNum == sf.QPNum {
		t.Errorf("QPs: client %d %s, server %d %s", cf.QPNum, cf.QPState, sf.QPNum, sf.QPState)
	}
	// Each end's remote QP is the other's QP: what status matches the
	// two ends of a link by.
	if cf.RemoteQPNum != sf.QPNum || sf.RemoteQPNum != cf.QPNum {
		t.Errorf("remote QPs: client %d (remote %d), server %d (remote %d)", cf.QPNum, cf.RemoteQPNum, sf.QPNum, sf.RemoteQPNum)
	}
	if cf.Device != testDevice(t) || cf.PortNum != 1 {
		t.Errorf("device %q port %d", cf.Device, cf.PortNum)
	}

	exchange(t, client, server, "ping from the active side")
	exchange(t, server, client, "pong from the passive side")

	ctx := ctxFor(t, 10*time.Second)
	if err := client.Disconnect(); err != nil {
		t.Fatalf("client Disconnect: %v", err)
	}
	if err := server.Disconnect(); err != nil {
		t.Fatalf("server Disconnect: %v", err)
	}
	if _, err := client.WaitEvent(ctx, Disconnected); err != nil {
		t.Fatalf("client: %v", err)
	}
	if _, err := server.WaitEvent(ctx, Disconnected); err != nil {
		t.Fatalf("server: %v", err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if err := client.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := client.Disconnect(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Disconnect after Close: %v", err)
	}
}

func TestRCPairIPv4(t *testing.T) { testRCPair(t, testAddr(t)) }

func TestRCPairIPv6(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR6")
	if addr == "" {
		t.Fatal("RDMAFORM_TEST_ADDR6 is not set: the testbed gives rxe an IPv6 address")
	}
	testRCPair(t, addr)
}

func TestDialResolvesAsynchronously(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	ctx := ctxFor(t, 20*time.Second)
	id, err := Dial(ctx, ai, nil, &qp, ch, 0)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer id.Close()
	go func() {
		if req, _, err := l.GetRequest(ctx); err == nil {
			req.Accept(ctx, ConnParam{})
		}
	}()
	if _, err := id.Connect(ctx, ConnParam{}); err != nil {
		t.Fatalf("Connect after Dial: %v", err)
	}
	f, err := id.Facts()
	if err != nil || f.QPState != "RTS" || f.Remote.Port() == 0 {
		t.Fatalf("facts after Dial: %+v, %v", f, err)
	}

	// 192.0.2.1 (TEST-NET-1) has no route in the testbed.
	far := addrInfo(t, "192.0.2.1", port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	start := time.Now()
	_, err = Dial(ctx, far, nil, &qp, ch, 0)
	t.Logf("Dial to an address without a route: %v after %v", err, time.Since(start))
	var ee *EventError
	var oe *OpError
	if !errors.As(err, &ee) && !errors.As(err, &oe) {
		t.Fatalf("want ADDR_ERROR or a failed rdma_resolve_addr, got %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("resolution failure took %v", time.Since(start))
	}
	passive := addrInfo(t, testAddr(t), freePort(), Hints{Flags: Passive | NumericHost, PortSpace: PSTCP})
	if _, err := Dial(ctx, passive, nil, nil, ch, 0); err == nil || !strings.Contains(err.Error(), "passive") {
		t.Errorf("Dial with a passive address info: %v", err)
	}
}

// A UC pair goes through rdma_create_ep on both sides (the QP type comes
// from the hints). Soft-RoCE's rdma_accept refuses the UC connection
// (EINVAL): the test checks the UC QPs exist and that a failed accept is
// reported on both sides at once, or, where UC connects, that it carries a
// send.
func TestUCPair(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	port := freePort()
	pai := addrInfo(t, testAddr(t), port, Hints{Flags: Passive | NumericHost, PortSpace: PSTCP, QPType: UC})
	l, err := CreateEP(pai, nil, &qp, ch)
	if err != nil {
		t.Fatalf("CreateEP(passive UC): %v", err)
	}
	defer l.Close()
	if err := l.Listen(listenBacklog); err != nil {
		t.Fatal(err)
	}
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: UC})
	ctx := ctxFor(t, 20*time.Second)
	client, err := Dial(ctx, ai, nil, &qp, ch, 0) // falls back to rdma_create_ep for UC
	if err != nil {
		t.Fatalf("Dial(UC): %v", err)
	}
	defer client.Close()
	if f, err := client.Facts(); err != nil || f.QPType != UC {
		t.Fatalf("active UC facts: %+v, %v", f, err)
	}
	requests := make(chan *ID, 1)
	acceptErr := make(chan error, 1)
	go func() {
		req, _, err := l.GetRequest(ctx)
		if err == nil {
			requests <- req
			err = req.Accept(ctx, ConnParam{})
		}
		acceptErr <- err
	}()
	start := time.Now()
	_, connErr := client.Connect(ctx, ConnParam{})
	server := <-requests
	defer server.Close()
	if f, err := server.Facts(); err != nil || f.QPType != UC {
		t.Fatalf("passive UC facts: %+v, %v", f, err)
	}
	if aerr := <-acceptErr; connErr != nil || aerr != nil {
		t.Logf("UC connection refused after %v: active side %v; passive side %v", time.Since(start), connErr, aerr)
		if aerr == nil || !strings.Contains(aerr.Error(), "rdma_accept") || !errors.Is(connErr, syscall.ECONNREFUSED) {
			t.Fatalf("a failed UC accept must name rdma_accept and reject the peer: active %v, passive %v", connErr, aerr)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("the refusal took %v", time.Since(start))
		}
		return
	}
	exchange(t, client, server, "unreliable but connected")
}

// The IB port space carries RC connections over RoCE too, and RAI_FAMILY
// with an IPv6 family resolves the IPv6 address.
func TestIBPortSpaceAndFamilyHint(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSIB, &qp)
	if l.PortSpace() != PSIB {
		t.Fatalf("listener port space %s", l.PortSpace())
	}
	ctx := ctxFor(t, 20*time.Second)
	go func() {
		if req, _, err := l.GetRequest(ctx); err == nil {
			req.Accept(ctx, ConnParam{})
		}
	}()
	id := dial(t, ch, testAddr(t), port, PSIB, &qp)
	if _, err := id.Connect(ctx, ConnParam{}); err != nil {
		t.Fatalf("connect in the IB port space: %v", err)
	}
	addr6 := os.Getenv("RDMAFORM_TEST_ADDR6")
	ai, err := GetAddrInfo(addr6, "7471", &Hints{Flags: Passive | FamilyFlag, Family: FamilyIPv6, PortSpace: PSTCP})
	if err != nil {
		t.Fatalf("RAI_FAMILY with AF_INET6 for %s: %v", addr6, err)
	}
	defer ai.Close()
	if ai.Family != FamilyIPv6 {
		t.Errorf("family %d, want AF_INET6", ai.Family)
	}
}

func TestUDEndpoints(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSUDP, &qp)
	if l.QPType() != UD || l.PortSpace() != PSUDP {
		t.Fatalf("UDP listener is %s/%s", l.QPType(), l.PortSpace())
	}
	client := dial(t, ch, testAddr(t), port, PSUDP, &qp)
	ctx := ctxFor(t, 20*time.Second)
	go func() {
		req, _, err := l.GetRequest(ctx)
		if err == nil {
			req.Accept(ctx, ConnParam{PrivateData: []byte("sidr")})
		}
	}()
	ev, err := client.Connect(ctx, ConnParam{})
	if err != nil {
		t.Fatalf("UD resolve (SIDR): %v", err)
	}
	if ev.QPNum == 0 || ev.QKey == 0 {
		t.Errorf("UD ESTABLISHED lacks the remote QP number and Q_Key: %+v", ev)
	}
	f, err := client.Facts()
	if err != nil || f.QPType != UD || !f.HasQP || f.RemoteQPNum != ev.QPNum || f.RemoteQKey != ev.QKey {
		t.Fatalf("UD facts (the remote QP is the SIDR reply's, %d with Q_Key %#x): %+v, %v", ev.QPNum, ev.QKey, f, err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestConnectWithoutListenerFailsFast(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	id := dial(t, ch, testAddr(t), freePort(), PSTCP, &qp)
	start := time.Now()
	_, err := id.Connect(ctxFor(t, 30*time.Second), ConnParam{RetryCount: 7})
	took := time.Since(start)
	t.Logf("connect to a port without listener: %v after %v", err, took)
	var ee *EventError
	if !errors.As(err, &ee) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("want a REJECTED EventError (ECONNREFUSED), got %v", err)
	}
	if !strings.Contains(err.Error(), "rdma_connect: REJECTED") {
		t.Errorf("message %q does not name the call and event", err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v, want a prompt failure", took)
	}
}

func TestRejectCarriesPrivateData(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	client := dial(t, ch, testAddr(t), port, PSTCP, &qp)
	ctx := ctxFor(t, 20*time.Second)
	go func() {
		req, _, err := l.GetRequest(ctx)
		if err == nil {
			req.Reject([]byte("go away: max_connections reached"))
			req.Close()
		}
	}()
	_, err := client.Connect(ctx, ConnParam{})
	var ee *EventError
	if !errors.As(err, &ee) || ee.Event.Type != Rejected {
		t.Fatalf("want REJECTED, got %v", err)
	}
	if ee.Event.Status != ConsumerReject {
		t.Errorf("reject reason %d, want %d (consumer reject)", ee.Event.Status, ConsumerReject)
	}
	if !bytes.HasPrefix(ee.Event.PrivateData, []byte("go away: max_connections reached")) {
		t.Errorf("REJECTED private data %q", ee.Event.PrivateData)
	}
	if err := l.Reject(make([]byte, 149)); err == nil || !strings.Contains(err.Error(), "149 bytes exceeds the 148") {
		t.Errorf("oversized reject: %v", err)
	}
}

func TestCapsOverDeviceLimitsRefusedInGo(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	ch := newChannel(t)
	pd, err := AllocPD(devs[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	defer pd.Close()
	qp := DefaultQPInit()
	qp.MaxSendWR = uint32(devs[0].Limits.MaxQPWR) + 1
	ai := addrInfo(t, testAddr(t), freePort(), Hints{Flags: Passive | NumericHost, PortSpace: PSTCP, QPType: RC})
	_, err = CreateEP(ai, pd, &qp, ch)
	if err == nil || !strings.Contains(err.Error(), "exceeds the device limit") {
		t.Fatalf("max_send_wr over the limit: %v", err)
	}
	// The device reports no inline limit: the kernel refuses what is over
	// it, and the error says which cap that must be.
	qp = DefaultQPInit()
	qp.MaxInlineData = 1 << 16
	ai = addrInfo(t, testAddr(t), freePort(), Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	_, err = Dial(ctxFor(t, 30*time.Second), ai, pd, &qp, ch, 0)
	if !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), "rdma_create_qp") || !strings.Contains(err.Error(), "max_inline_data 65536") {
		t.Fatalf("max_inline_data over the device's: %v", err)
	}
	big := ConnParam{PrivateData: make([]byte, 57)}
	id := dial(t, ch, testAddr(t), freePort(), PSTCP, nil)
	if err := id.StartConnect(big); err == nil || !strings.Contains(err.Error(), "exceeds the 56 bytes") {
		t.Fatalf("57 bytes of connect private data: %v", err)
	}
}

func TestGetAddrInfoErrors(t *testing.T) {
	_, err := GetAddrInfo("no-such-host.invalid", "7471", &Hints{PortSpace: PSTCP})
	var ae *AddrInfoError
	if !errors.As(err, &ae) {
		t.Fatalf("unknown host: %v (%T), want *AddrInfoError", err, err)
	}
	t.Logf("unknown host: %v", err)
	_, err = GetAddrInfo("10.77.0.1x", "7471", &Hints{Flags: NumericHost, PortSpace: PSTCP})
	if !errors.As(err, &ae) {
		t.Fatalf("bad numeric host: %v (%T), want *AddrInfoError", err, err)
	}
}

func TestListenPortTakenIsEADDRINUSE(t *testing.T) {
	ch := newChannel(t)
	_, port := listen(t, ch, testAddr(t), PSTCP, nil)
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: Passive | NumericHost, PortSpace: PSTCP, QPType: RC})
	id, err := CreateEP(ai, nil, nil, ch)
	if err == nil {
		err = id.Listen(1)
		id.Close()
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second listener on port %s: %v, want EADDRINUSE", port, err)
	}
}

// createConnecting creates n active ids on ai with Dial, all at once, and
// starts their connects.
func createConnecting(t testing.TB, ai *AddrInfo, ch *EventChannel, qp *QPInit, n int) []*ID {
	ctx := ctxFor(t, 120*time.Second)
	out := make([]*ID, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Resolution gets a minute, not the default 2 s: hundreds
			// of resolves at once on a loaded host can take longer, and
			// what is tested is that they all connect, not how fast.
			id, err := Dial(ctx, ai, nil, qp, ch, time.Minute)
			if err == nil {
				err = id.StartConnect(ConnParam{RetryCount: 7, RNRRetryCount: 7})
			}
			if err != nil {
				errs <- err
				return
			}
			out[i] = id
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("creating and connecting: %v", err)
	default:
	}
	return out
}

// connectMany establishes n connections to one listener through the async
// API: all connects are started at once, a goroutine accepts.
func connectMany(t testing.TB, ch *EventChannel, l *ID, port string, n int) (clients, servers []*ID) {
	begin := time.Now()
	qp := DefaultQPInit()
	ctx := ctxFor(t, 120*time.Second)
	srv := make(chan *ID, n)
	errs := make(chan error, 3*n)
	go func() {
		for i := 0; i < n; i++ {
			req, _, err := l.GetRequest(ctx)
			if err != nil {
				errs <- err
				return
			}
			if err := req.StartAccept(ConnParam{}); err != nil {
				errs <- err
			}
			srv <- req
		}
	}()
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	clients = createConnecting(t, ai, ch, &qp, n)
	created := time.Now()
	waitAll(ctx, clients, Established, errs)
	for i := 0; i < n; i++ {
		select {
		case s := <-srv:
			servers = append(servers, s)
		case err := <-errs:
			t.Fatalf("accepting: %v", err)
		case <-ctx.Done():
			t.Fatalf("only %d of %d requests arrived", i, n)
		}
	}
	waitAll(ctx, servers, Established, errs)
	select {
	case err := <-errs:
		t.Fatalf("establishing: %v", err)
	default:
	}
	t.Logf("%d connections: created and connecting after %v, all established after %v",
		n, created.Sub(begin), time.Since(begin))
	return clients, servers
}

// waitAll waits for an event of type want on every id, sending failures to
// errs.
func waitAll(ctx context.Context, ids []*ID, want EventType, errs chan<- error) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if _, err := id.WaitEvent(ctx, want); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
}

// disconnectAll disconnects from the active side; each passive side answers
// its DISCONNECTED with its own rdma_disconnect, as librdmacm users must, or
// the active side waits for the CM timeout.
func disconnectAll(t testing.TB, clients, servers []*ID) {
	ctx := ctxFor(t, 60*time.Second)
	for _, c := range clients {
		if err := c.Disconnect(); err != nil {
			t.Fatalf("Disconnect: %v", err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	wait := func(id *ID, answer bool) {
		defer wg.Done()
		_, err := id.WaitEvent(ctx, Disconnected)
		if err == nil && answer {
			err = id.Disconnect()
		}
		if err != nil {
			mu.Lock()
			failed = append(failed, err)
			mu.Unlock()
		}
	}
	for _, id := range servers {
		wg.Add(1)
		go wait(id, true)
	}
	for _, id := range clients {
		wg.Add(1)
		go wait(id, false)
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d ids saw no DISCONNECTED; first: %v", len(failed), failed[0])
	}
	for _, id := range append(clients, servers...) {
		id.Close()
	}
}

func Test200ConcurrentConnects(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	start := time.Now()
	clients, servers := connectMany(t, ch, l, port, 200)
	t.Logf("200 connections established in %v", time.Since(start))
	if len(clients) != 200 || len(servers) != 200 {
		t.Fatalf("%d clients, %d servers", len(clients), len(servers))
	}
	disconnectAll(t, clients, servers)
}

func TestIDLeaks(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	ai := addrInfo(t, testAddr(t), "7471", Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	// The first id opens what lives as long as the process or the channel
	// (librdmacm's device context, the channel's completion channel): make
	// one before taking the baseline.
	warm, err := CreateEP(ai, nil, &qp, ch)
	if err != nil {
		t.Fatal(err)
	}
	warm.Close()
	fds0, rss0 := openFDs(t), rssBytes(t)
	const total, batch = 10000, 100
	for i := 0; i < total; i += batch {
		var made []*ID
		for j := 0; j < batch; j++ {
			id, err := CreateEP(ai, nil, &qp, ch)
			if err != nil {
				t.Fatalf("CreateEP #%d: %v", i+j, err)
			}
			made = append(made, id)
		}
		for _, id := range made {
			id.Close()
		}
	}
	fds1, rss1 := openFDs(t), rssBytes(t)
	t.Logf("10,000 ids with QPs: descriptors %d -> %d, RSS %s -> %s", fds0, fds1, mib(rss0), mib(rss1))
	if fds1 > fds0+2 || LiveIDs() != 0 {
		t.Errorf("descriptors %d -> %d, live ids %d", fds0, fds1, LiveIDs())
	}
	if !raceDetector && rss1-rss0 > 32<<20 {
		t.Errorf("RSS grew by %s over 10,000 ids", mib(rss1-rss0))
	}

	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	fds0, rss0 = openFDs(t), rssBytes(t)
	for i := 0; i < 1000; i += 100 {
		clients, servers := connectMany(t, ch, l, port, 100)
		disconnectAll(t, clients, servers)
	}
	fds1, rss1 = openFDs(t), rssBytes(t)
	t.Logf("1,000 connected pairs: descriptors %d -> %d, RSS %s -> %s", fds0, fds1, mib(rss0), mib(rss1))
	if fds1 > fds0+2 || LiveIDs() != 1 {
		t.Errorf("descriptors %d -> %d, live ids %d (want only the listener)", fds0, fds1, LiveIDs())
	}
	if !raceDetector && rss1-rss0 > 32<<20 {
		t.Errorf("RSS grew by %s over 1,000 pairs", mib(rss1-rss0))
	}
}
