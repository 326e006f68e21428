package agentfabric

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
)

func TestEndpointSpecCarriesTheConfiguration(t *testing.T) {
	e := &config.Endpoint{Address: "10.77.0.1", Port: 7471, PortSpace: "tcp", PD: "protection_domain.rxe",
		QP:        &config.QP{Type: "rc", MaxSendWR: 32, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 2, MaxInlineData: 64},
		Connect:   config.Connect{RetryCount: 6, RNRRetryCount: 7, Timeout: 500 * time.Millisecond, PrivateData: []byte("hi")},
		Reconnect: &config.Reconnect{MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second}}
	s := endpointSpec(e)
	if s.Address != "10.77.0.1" || s.Port != 7471 || s.ProtectionDomain != "protection_domain.rxe" || s.Qp.MaxSendWr != 32 ||
		s.Qp.MaxRecvSge != 2 || s.Connect.Timeout != int64(500*time.Millisecond) || string(s.Connect.PrivateData) != "hi" ||
		s.Reconnect.MaxBackoff != int64(5*time.Second) || s.Probe != nil {
		t.Fatalf("spec %v", s)
	}
	if endpointSpec(&config.Endpoint{}).Qp != nil {
		t.Fatal("no qp block must mean no QP")
	}
}

func TestCallErrorNamesCallAndErrno(t *testing.T) {
	o := &pb.Object{Status: pb.Status_ERROR, LastError: &pb.ErrorInfo{Call: "rdma_connect", Errno: int32(syscall.ECONNREFUSED), ErrnoName: "ECONNREFUSED"}}
	err := objectError(o)
	if !errors.Is(err, syscall.ECONNREFUSED) || err.Error() != "rdma_connect: connection refused (ECONNREFUSED)" {
		t.Fatalf("%v", err)
	}
	if !failed(o) || failed(&pb.Object{Status: pb.Status_CONNECTING}) || !established(&pb.Object{Status: pb.Status_DEGRADED}) {
		t.Fatal("status classification")
	}
}

// The agent's messages name the call and errno already: the error says
// each once, and keeps what the message adds.
func TestCallErrorSaysCallAndErrnoOnce(t *testing.T) {
	for _, c := range []struct {
		call    string
		errno   syscall.Errno
		name    string
		message string
		want    string
	}{
		{"rdma_create_ep", syscall.EADDRINUSE, "EADDRINUSE", "rdma_create_ep: address already in use (EADDRINUSE)",
			"rdma_create_ep: address already in use (EADDRINUSE)"},
		{"rdma_connect", syscall.ECONNREFUSED, "ECONNREFUSED", "rdma_connect: REJECTED (reason 8: invalid service ID: no listener on that port)",
			"rdma_connect: connection refused (ECONNREFUSED): REJECTED (reason 8: invalid service ID: no listener on that port)"},
		{"rdma_connect", syscall.ETIMEDOUT, "ETIMEDOUT", "rdma_connect: no ESTABLISHED within 30s of rdma_connect: connection timed out",
			"rdma_connect: connection timed out (ETIMEDOUT): no ESTABLISHED within 30s of rdma_connect"},
		{"rdma_resolve_route", syscall.ETIMEDOUT, "ETIMEDOUT", "",
			"rdma_resolve_route: connection timed out (ETIMEDOUT)"},
		{"ibv_poll_cq", 0, "", "ibv_poll_cq: work completion status 12 (transport retry counter exceeded)",
			"ibv_poll_cq: work completion status 12 (transport retry counter exceeded)"},
	} {
		o := &pb.Object{Status: pb.Status_ERROR, LastError: &pb.ErrorInfo{Call: c.call, Errno: int32(c.errno), ErrnoName: c.name, Message: c.message}}
		if got := objectError(o).Error(); got != c.want {
			t.Errorf("%s %s %q:\n got %s\nwant %s", c.call, c.name, c.message, got, c.want)
		}
	}
}

func TestFactsSplitAddresses(t *testing.T) {
	f := factsOf(&pb.Object{Address: "endpoint.a", Status: pb.Status_ESTABLISHED,
		Facts: &pb.Facts{LocalAddr: "10.77.0.1:45678", RemoteAddr: "10.77.0.1:7471", Device: "rxe0", Port: 1, QpNum: 17, QpType: "rc"}})
	if f.LocalAddr != "10.77.0.1" || f.LocalPort != 45678 || f.RemotePort != 7471 || f.QPNum != 17 || f.Status != "established" || f.AgentHandle != "endpoint.a" {
		t.Fatalf("%+v", f)
	}
}

func TestDeviceForMapsInterfacesToRDMADevices(t *testing.T) {
	dir := t.TempDir()
	old := sysInfiniband
	sysInfiniband = dir
	t.Cleanup(func() { sysInfiniband = old })
	ndevs := filepath.Join(dir, "rxe0", "ports", "1", "gid_attrs", "ndevs")
	os.MkdirAll(ndevs, 0o755)
	os.WriteFile(filepath.Join(ndevs, "0"), []byte("lo\n"), 0o644)

	if d, err := deviceFor("127.0.0.1"); err != nil || d != "rxe0" {
		t.Fatalf("127.0.0.1: %q %v", d, err)
	}
	if d, err := deviceFor("0.0.0.0"); err != nil || d != "rxe0" {
		t.Fatalf("wildcard: %q %v", d, err)
	}
	os.WriteFile(filepath.Join(ndevs, "0"), []byte("eth9\n"), 0o644)
	_, err := deviceFor("127.0.0.1")
	if !errors.Is(err, planner.ErrNoDevice) || !strings.Contains(err.Error(), "lo") {
		t.Fatalf("no device: %v", err)
	}
}

// The facts of what the agent holds name this host, whose agent it is.
func TestFactsNameThisHost(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if f := factsOf(&pb.Object{Address: "endpoint.e"}); f.AgentHost != host || host == "" {
		t.Errorf("agent_host %q, want %q", f.AgentHost, host)
	}
}
