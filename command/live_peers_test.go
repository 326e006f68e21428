package command

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// withObjects is withFabric whose agent also lists objects (those of
// other namespaces and connections, which memFabric does not make).
func withObjects(t *testing.T, f *memFabric, objects func() []*pb.Object) Meta {
	meta := withFabric(t, f)
	connect := meta.Connect
	meta.Connect = func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
		fc, err := connect(ctx, socket, notify, mayStart)
		if fc != nil {
			fc.Objects = func(context.Context) ([]*pb.Object, error) { return objects(), nil }
		}
		return fc, err
	}
	return meta
}

// loopPeers is what the agent holds once planTestConfig is applied and
// another namespace's endpoint and a client of another host connected to
// listener.loop: three accepted connections, one of them
// endpoint.client[0]'s.
func loopPeers() []*pb.Object {
	conn := func(n, local, remote string, qp, rqp uint32) *pb.Object {
		return &pb.Object{Address: "listener.loop/conn/" + n, Parent: "listener.loop", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED,
			Facts: &pb.Facts{LocalAddr: local, RemoteAddr: remote, QpNum: qp, RemoteQpNum: rqp}}
	}
	ep := func(name, local string, qp, rqp uint32) *pb.Object {
		return &pb.Object{Address: name, Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
			Facts: &pb.Facts{LocalAddr: local, RemoteAddr: "10.77.0.1:7471", QpNum: qp, RemoteQpNum: rqp}}
	}
	return []*pb.Object{
		{Address: "protection_domain.rxe", Kind: pb.Kind_PROTECTION_DOMAIN, Status: pb.Status_READY},
		{Address: "listener.loop", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, Connections: 3},
		conn("1", "10.77.0.1:7471", "10.77.0.1:40001", 21, 11),
		conn("2", "10.77.0.1:7471", "10.77.0.1:40002", 22, 12),
		conn("3", "10.77.0.1:7471", "10.77.0.5:53311", 23, 13),
		ep("endpoint.client[0]", "10.77.0.1:40001", 11, 21),
		ep("endpoint.x[0]@other", "10.77.0.1:40002", 12, 22),
	}
}

// A plan that destroys a listener names the live connections of other
// configurations it cuts: they are not in this state, so "1 to destroy"
// says nothing of them.
func TestPlanNamesTheLivePeersADestroyedListenerCuts(t *testing.T) {
	f := newMemFabric()
	meta := withObjects(t, f, loopPeers)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	const want = "listener.loop has 2 live connections that destroying it ends: endpoint.x[0] (namespace other) and 10.77.0.5:53311 (not held by this agent: another host's, or not rdmaform's)."
	code, out, errs := meta.cmd(t, dir, "", "plan", "-destroy", "-no-color")
	all := strings.Join(strings.Fields(out+errs), " ")
	if code != 0 || !strings.Contains(all, "Warning: Destroying listener.loop cuts live connections of other configurations") || !strings.Contains(all, want) {
		t.Errorf("plan -destroy: exit %d\n%s\n%s", code, out, errs)
	}
	// This state's own endpoint is not named: the plan shows its fate.
	if strings.Contains(all, "endpoint.client[0] (") {
		t.Errorf("names this state's own endpoint:\n%s%s", out, errs)
	}
	code, out, _ = meta.cmd(t, dir, "", "plan", "-destroy", "-json")
	if code != 0 || !strings.Contains(out, `"@level":"warn"`) || !strings.Contains(out, "endpoint.x[0] (namespace other)") {
		t.Errorf("plan -destroy -json: exit %d\n%s", code, out)
	}
	// A listener kept cuts nothing.
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color"); code != 0 || strings.Contains(out+errs, "live connections") {
		t.Errorf("plan: exit %d\n%s\n%s", code, out, errs)
	}
}

// A QP attribute change replaces every connected endpoint at once: the
// plan says how many live connections that interrupts, and points to
// create_before_destroy, unless it is set.
func TestPlanSaysAReplacementInterruptsLiveConnections(t *testing.T) {
	f := newMemFabric()
	meta := withObjects(t, f, func() []*pb.Object {
		return []*pb.Object{
			{Address: "endpoint.client[0]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED},
			{Address: "endpoint.client[1]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED},
		}
	})
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	write := func(cfg string) {
		if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Replace(planTestConfig, "qp {}", "qp {\n    max_send_wr = 128\n  }", 1))
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	all := strings.Join(strings.Fields(out+errs), " ")
	if code != 0 || !strings.Contains(all, "must be replaced") || !strings.Contains(all, "Warning: Replacement interrupts live connections") ||
		!strings.Contains(all, "the replacement interrupts 2 live connections (endpoint.client[0] and endpoint.client[1])") ||
		!strings.Contains(all, "lifecycle { create_before_destroy = true }") {
		t.Errorf("plan: exit %d\n%s\n%s", code, out, errs)
	}
	write(strings.Replace(planTestConfig, "qp {}", "qp {\n    max_send_wr = 128\n  }\n  lifecycle {\n    create_before_destroy = true\n  }", 1))
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 || !strings.Contains(out, "create replacement and then destroy") || strings.Contains(out+errs, "interrupts") {
		t.Errorf("plan with create_before_destroy: exit %d\n%s\n%s", code, out, errs)
	}
}
