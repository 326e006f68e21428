package agentfabric

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// hostAgent answers DeviceFor as an agent on another host would.
type hostAgent struct {
	pb.AgentClient
	answers map[string]*pb.DeviceForResponse
	asked   []string
	err     error
}

func (a *hostAgent) DeviceFor(_ context.Context, r *pb.DeviceForRequest, _ ...grpc.CallOption) (*pb.DeviceForResponse, error) {
	a.asked = append(a.asked, r.Address)
	if a.err != nil {
		return nil, a.err
	}
	return a.answers[r.Address], nil
}

// A remote agent's device questions are its host's: DeviceFor and
// IsLocal ask it (once per address), never this host's interfaces.
func TestRemoteFabricAsksItsAgent(t *testing.T) {
	a := &hostAgent{answers: map[string]*pb.DeviceForResponse{
		"127.0.0.1": {NoDevice: "rdma_bind_addr: no such device (ENODEV)"},
		"10.77.1.1": {Device: "rxe0", Local: true},
		"10.77.1.2": {Device: "rxe0"},
	}}
	f := NewRemote(a)
	if dev, err := f.DeviceFor(context.Background(), "10.77.1.1"); err != nil || dev != "rxe0" {
		t.Errorf("DeviceFor(10.77.1.1) = %q, %v", dev, err)
	}
	if !f.IsLocal(netip.MustParseAddr("10.77.1.1")) {
		t.Error("10.77.1.1 is the agent's host's, it says")
	}
	if len(a.asked) != 1 {
		t.Errorf("asked %v: IsLocal after DeviceFor asks again", a.asked)
	}
	// This host's loopback is not the agent's, nor served by its device.
	_, err := f.DeviceFor(context.Background(), "127.0.0.1")
	if !errors.Is(err, planner.ErrNoDevice) || !strings.Contains(err.Error(), "ENODEV") || f.IsLocal(netip.MustParseAddr("127.0.0.1")) {
		t.Errorf("127.0.0.1 on the agent's host: %v, local %v", err, f.IsLocal(netip.MustParseAddr("127.0.0.1")))
	}
	if f.IsLocal(netip.MustParseAddr("10.77.1.2")) {
		t.Error("10.77.1.2 is not the agent's host's, it says")
	}
	// The device checks ask IsLocal first for a listener's address, then
	// DeviceFor: still one question.
	before := len(a.asked)
	if _, err := f.DeviceFor(context.Background(), "10.77.1.2"); err != nil || len(a.asked) != before {
		t.Errorf("DeviceFor after IsLocal: %v, asked %v", err, a.asked[before:])
	}
}

func TestRemoteFabricOfAnOlderAgent(t *testing.T) {
	f := NewRemote(&hostAgent{err: status.Error(codes.Unimplemented, "unknown method DeviceFor")})
	_, err := f.DeviceFor(context.Background(), "10.77.1.1")
	if err == nil || !strings.Contains(err.Error(), "older than this rdmaform") || strings.Contains(err.Error(), "Unimplemented") {
		t.Errorf("an agent without DeviceFor: %v", err)
	}
	if !f.IsLocal(netip.MustParseAddr("10.77.1.1")) {
		t.Error("an agent that cannot say leaves the address to apply")
	}
}

// pdAgent makes protection domains.
type pdAgent struct{ pb.AgentClient }

func (pdAgent) CreateProtectionDomain(_ context.Context, r *pb.CreateProtectionDomainRequest, _ ...grpc.CallOption) (*pb.Object, error) {
	return &pb.Object{Address: r.Address, Kind: pb.Kind_PROTECTION_DOMAIN, Status: pb.Status_READY}, nil
}

// What a remote agent makes is on its host: the facts name no host of
// this one's (a local agent's name this host).
func TestFactsOfARemoteAgentNameNoHostOfOurs(t *testing.T) {
	spec := apply.Spec{ProtectionDomain: &config.ProtectionDomain{Device: "rxe0"}}
	h := apply.Handle{Name: "protection_domain.p"}
	facts, err := NewRemote(pdAgent{}).Create(context.Background(), h, spec, "t")
	if err != nil || facts.AgentHost != "" || facts.AgentHandle != "protection_domain.p" {
		t.Errorf("remote: %+v, %v; want no agent_host", facts, err)
	}
	if facts, err := New(pdAgent{}).Create(context.Background(), h, spec, "t"); err != nil || facts.AgentHost == "" {
		t.Errorf("local: %+v, %v; want this host", facts, err)
	}
}
