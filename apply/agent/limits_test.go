package agent

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// rawCodec sends bytes as they are, as a client of its own could.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// serveRaw serves a on a unix socket and returns a connection that sends
// raw bytes.
func serveRaw(t *testing.T, a *Agent) *grpc.ClientConn {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer()
	pb.RegisterAgentServer(srv, &service{agent: a, info: &pb.InfoResponse{}, shutdown: func() {}})
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(1<<30), grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A million empty endpoints in a 2 MB request (it once took the agent
// from 27 MB to 419 MB) are refused before they are decoded: the whole
// exchange allocates a few times the request's size.
func TestTooManyEntriesAreRefusedBeforeDecoding(t *testing.T) {
	a := New(nil)
	conn := serveRaw(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []byte
	// A small call first, so that the connection's set-up is not counted.
	if err := conn.Invoke(ctx, "/rdmaform.agent.v1.Agent/DeleteMany", []byte{}, &out, grpc.ForceCodecV2(rawCodec{})); err != nil {
		t.Fatal(err)
	}
	const n = 1_000_000
	req := bytes.Repeat([]byte{0x0a, 0x00}, n) // field 1 (endpoints), empty, n times
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := conn.Invoke(ctx, "/rdmaform.agent.v1.Agent/CreateEndpoints", req, &out, grpc.ForceCodecV2(rawCodec{}))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte request of %d entries: %v; allocated %.1f MiB", len(req), n, err, float64(allocated)/(1<<20))
	if err == nil || !strings.Contains(status.Convert(err).Message(), fmt.Sprintf("holds %d entries, more than the agent takes in one request (%d)", n, MaxRequestEntries)) {
		t.Fatalf("CreateEndpoints of %d entries: %v", n, err)
	}
	if allocated > 64<<20 {
		t.Errorf("refusing the request allocated %.1f MiB, want under 64", float64(allocated)/(1<<20))
	}
	if a.reg.len() != 0 {
		t.Errorf("the agent holds %d objects", a.reg.len())
	}
	// Deletes and a list filter's prefixes count too; the limit itself is
	// taken.
	for _, c := range []struct {
		method  string
		req     []byte
		refused bool
	}{
		{"DeleteMany", bytes.Repeat([]byte{0x0a, 0x00}, MaxRequestEntries+1), true},
		{"DeleteMany", bytes.Repeat([]byte{0x0a, 0x00}, MaxRequestEntries), false},
		{"List", protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), bytes.Repeat([]byte{0x0a, 0x00}, MaxRequestEntries+1)), true},                                                                    // filter {prefixes ×10,001}
		{"List", protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), bytes.Repeat([]byte{0x10, 0x01}, MaxRequestEntries+1)), true},                                                                    // filter {kinds ×10,001}
		{"List", protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), bytes.Repeat([]byte{0x01}, MaxRequestEntries+1))), true}, // filter {kinds packed ×10,001}
	} {
		err := conn.Invoke(ctx, "/rdmaform.agent.v1.Agent/"+c.method, c.req, &out, grpc.ForceCodecV2(rawCodec{}))
		if refused := err != nil && strings.Contains(err.Error(), "more than the agent takes in one request"); refused != c.refused {
			t.Errorf("%s of %d bytes: %v", c.method, len(c.req), err)
		}
	}
}

// A request over MaxRequestBytes is refused by gRPC itself; one just
// under it is taken (a list filtered by one long prefix, whose answer is
// empty).
func TestRequestsOverTheSizeLimitAreRefused(t *testing.T) {
	conn := serveRaw(t, New(nil))
	list := func(prefix int) []byte {
		filter := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), make([]byte, prefix))
		return protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), filter)
	}
	var out []byte
	big := list(MaxRequestBytes)
	err := conn.Invoke(context.Background(), "/rdmaform.agent.v1.Agent/List", big, &out, grpc.ForceCodecV2(rawCodec{}))
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), fmt.Sprintf("vs. %d", MaxRequestBytes)) {
		t.Fatalf("a %d-byte request: %v", len(big), err)
	}
	small := list(MaxRequestBytes - 64)
	if err := conn.Invoke(context.Background(), "/rdmaform.agent.v1.Agent/List", small, &out, grpc.ForceCodecV2(rawCodec{})); err != nil {
		t.Fatalf("a %d-byte request: %v", len(small), err)
	}
}

func TestTheAgentHoldsAtMostMaxObjects(t *testing.T) {
	a := New(nil)
	filler := a.newObject("protection_domain.filler", "t", "", pb.Kind_PROTECTION_DOMAIN)
	for i := range MaxObjects {
		a.reg.objects[fmt.Sprintf("protection_domain.p%d", i)] = filler
	}
	c := serve(t, a)
	_, err := c.CreateProtectionDomain(context.Background(), &pb.CreateProtectionDomainRequest{
		Address: "protection_domain.one_more", Token: "t", Spec: &pb.ProtectionDomainSpec{Device: "rxe0"}})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "the agent holds 100000 objects, its limit (100000)") {
		t.Fatalf("one object more: %v", err)
	}
}

func TestNamesAreChecked(t *testing.T) {
	c := serve(t, New(nil))
	for _, name := range []string{
		"endpoint.e[\"\x1b]0;owned\a\"]",
		"endpoint.e\x00",
		"/etc/passwd",
		`endpoint.e["a/../b"]`,
		"endpoint." + strings.Repeat("e", MaxNameBytes),
	} {
		_, err := c.CreateEndpoint(context.Background(), &pb.CreateEndpointRequest{Address: name, Token: "t",
			Spec: &pb.EndpointSpec{Address: "192.0.2.1", Port: 7471}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "the name ") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if err := checkAddress("endpoint.e[\"\xff\"]"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("a name not UTF-8: %v", err) // gRPC refuses it before the agent sees it
	}
	for _, name := range []string{`endpoint.e["a/b"]`, `endpoint.e["..x"]`, `endpoint.e["café"]@ns#1234abcd`} {
		if err := checkAddress(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}
