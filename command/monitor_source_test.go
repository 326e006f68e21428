package command

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui"
)

// The monitor shows a reconnecting endpoint, or one whose connection
// ended for good, without the QP and local port of the connection that
// ended; an established one keeps them.
func TestMonitorObjectLeavesOutAnEndedConnection(t *testing.T) {
	t.Parallel()
	facts := &pb.Facts{LocalAddr: "10.77.0.1:39851", RemoteAddr: "10.77.0.1:7570", Device: "rxe0", Port: 1, QpNum: 31, QpType: "rc", QpState: "RTS"}
	up := monitorObject(&pb.Object{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts})
	if up.QPNum != 31 || up.LocalAddr != "10.77.0.1:39851" {
		t.Errorf("established: QP %d, local %q", up.QPNum, up.LocalAddr)
	}
	re := monitorObject(&pb.Object{Address: "endpoint.re", Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING, Facts: facts})
	if re.QPNum != 0 || re.LocalAddr != "" || re.RemoteAddr != "10.77.0.1:7570" || re.Device != "rxe0" {
		t.Errorf("reconnecting: QP %d, local %q, remote %q, device %q", re.QPNum, re.LocalAddr, re.RemoteAddr, re.Device)
	}
	probe := &pb.ProbeStats{Last: 2100000, Sent: 40}
	for _, st := range []pb.Status{pb.Status_RECONNECTING, pb.Status_DISCONNECTED, pb.Status_ERROR, pb.Status_REJECTED} {
		gone := monitorObject(&pb.Object{Address: "endpoint.gone", Kind: pb.Kind_ENDPOINT, Status: st, Facts: facts, Probe: probe})
		if gone.QPNum != 0 || gone.LocalAddr != "" || gone.Device != "rxe0" || !gone.Probe.Ended {
			t.Errorf("%s: QP %d, local %q, device %q, probes of an ended connection %v", st, gone.QPNum, gone.LocalAddr, gone.Device, gone.Probe.Ended)
		}
	}
	if up := monitorObject(&pb.Object{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts, Probe: probe}); up.Probe.Ended {
		t.Error("established: its probes read as an ended connection's")
	}
	if facts.QpNum != 31 || facts.LocalAddr == "" {
		t.Errorf("the agent's facts were changed: %v", facts)
	}
}

// An IPv6 address and its port read as one, bracketed, in the monitor's
// settings.
func TestMonitorSettingsBracketAnIPv6Address(t *testing.T) {
	t.Parallel()
	o := &pb.Object{Address: "endpoint.v6", Kind: pb.Kind_ENDPOINT, Spec: &pb.Object_Endpoint{Endpoint: &pb.EndpointSpec{Address: "fd00:77::1", Port: 7471}}}
	for _, s := range settings(o) {
		if s.Key == "address" {
			if s.Value != "[fd00:77::1]:7471" {
				t.Errorf("address %q, want [fd00:77::1]:7471", s.Value)
			}
			return
		}
	}
	t.Error("no address in the settings")
}

func TestMonitorObjectCarriesTheReceivedPrivateData(t *testing.T) {
	t.Parallel()
	o := monitorObject(&pb.Object{Address: "endpoint.e", Kind: pb.Kind_ENDPOINT, ReceivedPrivateData: []byte("srv-accept")})
	if o.ReceivedPrivateData != `"srv-accept"` {
		t.Errorf("the monitor's object has %q", o.ReceivedPrivateData)
	}
}

// inProcessAgent runs an agent in this process on a socket of its own until
// the test ends, and a client of it.
func inProcessAgent(t *testing.T) (string, *client.Client) {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "rdmaform", "agent.sock")
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: socket, Version: "test", Stderr: io.Discard,
			Ready: func(*pb.InfoResponse) { close(ready) }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("agent.Run: %v", err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	c, err := client.Dial(dctx, socket)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return socket, c
}

func TestMonitorSourceSendsSnapshotThenChanges(t *testing.T) {
	t.Parallel()
	socket, c := inProcessAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	snap := make(chan int, 1)
	updates := make(chan tui.Update, 100)
	done := make(chan error, 1)
	go func() {
		done <- agentSource{socket: socket}.watch(ctx,
			func(objs []tui.Object, info tui.AgentInfo) {
				if info.PID != os.Getpid() || info.Socket != socket {
					t.Errorf("agent info %+v", info)
				}
				snap <- len(objs)
			},
			func(u tui.Update) { updates <- u })
	}()
	if n := <-snap; n != 0 {
		t.Fatalf("snapshot of %d objects, want 0", n)
	}
	// Without an RDMA device here (or with one), the listener on a
	// documentation address ends in error; either way its changes arrive.
	c.CreateListener(ctx, &pb.CreateListenerRequest{Address: "listener.m", Token: "t",
		Spec: &pb.ListenerSpec{Address: "192.0.2.1", Port: 7471}})
	var last tui.Update
	for last.Object.Status != "error" {
		select {
		case last = <-updates:
		case <-ctx.Done():
			t.Fatalf("no error status; last update %+v", last)
		}
	}
	o := last.Object
	if o.Address != "listener.m" || o.Kind != tui.KindListener || o.LastError == nil || o.LastError.Call == "" {
		t.Errorf("update %+v", o)
	}
	if e := o.LastError; e != nil && e.Errno != 0 && e.ErrnoName == "" {
		t.Errorf("the last error's errno %d comes without the agent's name for it", e.Errno)
	}
	if len(o.Config) == 0 || o.Config[0].Value != "192.0.2.1:7471" || len(o.History) < 2 {
		t.Errorf("config %v, history %v", o.Config, o.History)
	}
	if _, err := c.Delete(ctx, &pb.DeleteRequest{Address: "listener.m"}); err != nil {
		t.Fatal(err)
	}
	for !last.Deleted {
		select {
		case last = <-updates:
		case <-ctx.Done():
			t.Fatal("no deletion")
		}
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Watch after cancel: %v", err)
	}
}

// An earlier agent's failure in the log is not this one's reason.
