package command

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
	"google.golang.org/grpc"
)

// remoteDevicesConfig puts a listener on a remote agent; %s is its
// address.
const remoteDevicesConfig = `
agent "s1" {
  address = %q
  tls {
    ca_file   = %q
    cert_file = %q
    key_file  = %q
  }
}

listener "a" {
  agent   = agent.s1
  address = %q
  port    = 7471
}
`

// routesAgent is a remote agent that holds nothing, has rxe0, and says
// which addresses are its host's.
type routesAgent struct {
	pb.AgentClient
	own   string
	mu    sync.Mutex
	asked []string
}

func (a *routesAgent) List(context.Context, *pb.ListRequest, ...grpc.CallOption) (*pb.ListResponse, error) {
	return &pb.ListResponse{}, nil
}

func (a *routesAgent) KernelListeners(context.Context, *pb.KernelListenersRequest, ...grpc.CallOption) (*pb.KernelListenersResponse, error) {
	return &pb.KernelListenersResponse{}, nil // no other program listens
}

func (a *routesAgent) Devices(context.Context, *pb.DevicesRequest, ...grpc.CallOption) (*pb.DevicesResponse, error) {
	return &pb.DevicesResponse{Devices: []*pb.Device{{Name: "rxe0", Limits: &pb.Limits{MaxQpWr: 1024, MaxSge: 4, MaxCqe: 4096}}}}, nil
}

func (a *routesAgent) DeviceFor(_ context.Context, r *pb.DeviceForRequest, _ ...grpc.CallOption) (*pb.DeviceForResponse, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r.Address)
	a.mu.Unlock()
	return &pb.DeviceForResponse{Device: "rxe0", Local: r.Address == a.own}, nil
}

// A listener's address must be its agent's host's: the plan asks that
// agent (whose host this one is not), and names the host when it is not.
func TestPlanAsksTheRemoteAgentWhetherAnAddressIsItsHosts(t *testing.T) {
	for _, c := range []struct {
		address string
		ok      bool
	}{{"10.77.1.1", true}, {"10.77.1.2", false}} {
		t.Run(c.address, func(t *testing.T) {
			fake := &routesAgent{own: "10.77.1.1"}
			meta := withFabric(t, newMemFabric())
			meta.ConnectRemote = func(context.Context, *config.Agent) (*fabricConn, error) {
				return remoteFabric(fake, nil), nil
			}
			dir := planDir(t, fmt.Sprintf(remoteDevicesConfig, "10.77.1.1:7470", "ca.pem", "c.pem", "k.pem", c.address))
			code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
			if len(fake.asked) == 0 || fake.asked[0] != c.address {
				t.Errorf("the remote agent was asked about %v, want %s", fake.asked, c.address)
			}
			if c.ok {
				if code != 0 || !strings.Contains(out, "Plan: 1 to add") {
					t.Errorf("plan of a listener on its agent's own address: exit %d\n%s%s", code, out, errs)
				}
				return
			}
			want := `On the host of agent.s1 (10.77.1.1:7470): listener.a: 10.77.1.2 is not an address of this host`
			if code != 1 || !strings.Contains(errs, "Address not on this host") || !strings.Contains(errs, want) {
				t.Errorf("plan of a listener on another host's address: exit %d, want 1 and\n%s\n%s%s", code, want, out, errs)
			}
		})
	}
}

// A real agent over mutual TLS answers the device questions for its
// host: no RDMA device serves the address (one of the host's own, as a
// listener's must be; on a host without any device the plan says that
// once), and the plan says so, naming the agent.
func TestPlanAsksARemoteAgentOverTLSWhichDeviceServesAnAddress(t *testing.T) {
	dir := t.TempDir()
	ca := pki.NewCA(t, dir, "ca")
	server := ca.Server(t, "storage-1", pki.IPs("127.0.0.1"))
	user := ca.Client(t, "operator")
	info := serveAgent(t, agent.Options{Socket: filepath.Join(t.TempDir(), "rdmaform", "agent.sock"), Version: "test", Stderr: io.Discard,
		TLS: agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: ca.CertFile}})
	meta := withFabric(t, newMemFabric())
	cfgDir := planDir(t, fmt.Sprintf(remoteDevicesConfig, info.Listen, ca.CertFile, user.CertFile, user.KeyFile, "127.0.0.1"))
	code, out, errs := meta.cmd(t, cfgDir, "", "plan", "-no-color")
	summary, want := "Address not reachable over RDMA", fmt.Sprintf("On the host of agent.s1 (%s): listener.a: no RDMA device serves 127.0.0.1", info.Listen)
	if nodevice.OnThisHost() { // the agent lists none: said once, with what to do
		summary, want = nodevice.Summary, fmt.Sprintf("On the host of agent.s1 (%s): listener.a needs an RDMA device, but %s", info.Listen, nodevice.Help)
	}
	if code != 1 || !strings.Contains(errs, summary) || !strings.Contains(errs, want) || strings.Contains(errs, "rpc error") {
		t.Errorf("plan of a listener on a host without RDMA: exit %d, want 1 and\n%s\n%s%s", code, want, out, errs)
	}
}
