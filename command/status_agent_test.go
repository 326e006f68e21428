package command

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// fakeAgent answers List with objects and Watch with a snapshot of
// snapshot, then each batch of changes, then end.
type fakeAgent struct {
	pb.UnimplementedAgentServer
	objects, snapshot []*pb.Object
	changes           [][]*pb.Change
	end               error
	// hold keeps the watch open after the changes, until the client
	// leaves.
	hold bool
	// fail is Info's and List's answer, when not nil.
	fail error
}

func (f *fakeAgent) List(_ context.Context, _ *pb.ListRequest) (*pb.ListResponse, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	return &pb.ListResponse{Objects: f.objects, Agent: &pb.InfoResponse{Pid: 162}}, nil
}

func (f *fakeAgent) Info(_ context.Context, _ *pb.InfoRequest) (*pb.InfoResponse, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	return &pb.InfoResponse{Pid: 162}, nil
}

func (f *fakeAgent) Watch(_ *pb.WatchRequest, stream grpc.ServerStreamingServer[pb.WatchResponse]) error {
	if err := stream.Send(&pb.WatchResponse{Snapshot: true, Objects: f.snapshot}); err != nil {
		return err
	}
	for _, chs := range f.changes {
		if err := stream.Send(&pb.WatchResponse{Changes: chs}); err != nil {
			return err
		}
	}
	if f.hold {
		<-stream.Context().Done()
		return stream.Context().Err()
	}
	return f.end
}

// serveFakeAgent serves f on a socket in a temporary directory.
func serveFakeAgent(t *testing.T, f pb.AgentServer) string {
	t.Helper()
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

func runStatusForTest(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(append([]string{"status"}, args...), Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// status -watch prints only what changed (also between its list and its
// watch's snapshot), and says in words when the agent stops.
func TestStatusWatchPrintsOnlyChangesAndTheAgentStopping(t *testing.T) {
	t.Parallel()
	obj := func(addr string, st pb.Status, event string) *pb.Object {
		return &pb.Object{Address: addr, Kind: pb.Kind_ENDPOINT, Status: st, LastEvent: event}
	}
	f := &fakeAgent{
		objects: []*pb.Object{
			obj("endpoint.a", pb.Status_ESTABLISHED, "ESTABLISHED"),
			obj("endpoint.b", pb.Status_ESTABLISHED, "ESTABLISHED"),
			obj("endpoint.c", pb.Status_ESTABLISHED, "ESTABLISHED"),
		},
		snapshot: []*pb.Object{
			obj("endpoint.a", pb.Status_ESTABLISHED, "ESTABLISHED"),
			obj("endpoint.b", pb.Status_RECONNECTING, "DISCONNECTED"), // between list and watch
		},
		changes: [][]*pb.Change{
			{{Object: obj("endpoint.a", pb.Status_ESTABLISHED, "ESTABLISHED")}}, // a probe: nothing new
			{{Object: obj("endpoint.b", pb.Status_ESTABLISHED, "ESTABLISHED")}},
		},
		end: status.Error(codes.Unavailable, "the agent stopped"),
	}
	code, stdout, stderr := runStatusForTest("-watch", "-agent="+serveFakeAgent(t, f))
	_, watched, _ := strings.Cut(stdout, "3 objects: 3 established\n")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(watched), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l)[1:], " "))
	}
	want := []string{
		"endpoint.b reconnecting DISCONNECTED",
		"endpoint.c deleted",
		"endpoint.b established ESTABLISHED",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("watch lines:\n%s\nwant:\n%s\n(stdout %s)", strings.Join(lines, "\n"), strings.Join(want, "\n"), stdout)
	}
	if code != 1 || stderr != "Error: the agent stopped (pid 162); its objects went with it\n" {
		t.Errorf("exit code %d, stderr %q", code, stderr)
	}
}

func TestStatusSaysNoAgentWithoutGRPCWords(t *testing.T) {
	t.Parallel()
	socket := filepath.Join(t.TempDir(), "agent.sock")
	for _, args := range [][]string{{}, {"-json"}, {"-watch"}} {
		code, _, stderr := runStatusForTest(append(args, "-agent="+socket)...)
		if code != 1 || !strings.Contains(stderr, "no rdmaform agent answers at "+socket) ||
			strings.Contains(stderr, "rpc error") || strings.Contains(stderr, "dial unix") {
			t.Errorf("status %v: exit code %d, stderr %q", args, code, stderr)
		}
	}
}

// A directory or a regular file is no socket: said at once, for status and
// monitor alike.
func TestStatusAndMonitorSayAPathIsNoSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{dir, dir + " is a directory, not a socket"},
		{file, file + " is not a socket"},
	} {
		for _, cmd := range []string{"status", "monitor"} {
			var out, errb bytes.Buffer
			code := run([]string{cmd, "-agent=" + c.path}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != 1 || !strings.HasPrefix(errb.String(), "Error: "+c.want+"\n") || strings.Contains(errb.String(), "Start one") {
				t.Errorf("%s -agent=%s: exit code %d, stderr %q", cmd, c.path, code, errb.String())
			}
		}
	}
}

func TestAgentErrorLeavesOutGRPCWords(t *testing.T) {
	t.Parallel()
	if err := agentError(status.Error(codes.Unavailable, "the agent stopped")); !errors.Is(err, tui.ErrAgentStopped) {
		t.Errorf("agent stop: %v", err)
	}
	if err := agentError(status.Error(codes.Unavailable, "error reading from server: EOF")); !errors.Is(err, tui.ErrAgentGone) {
		t.Errorf("crash: %v", err)
	}
	nr := &client.NotRunning{Socket: "/run/x.sock", Err: status.Error(codes.Unavailable, "connection error")}
	if err := agentError(nr); err.Error() != "no rdmaform agent answers at /run/x.sock" || !client.IsNotRunning(err) {
		t.Errorf("no agent: %v", err)
	}
	ny := &client.NotYours{Socket: "/run/x.sock", Owner: 7, Err: status.Error(codes.Unavailable, "permission denied")}
	if err := agentError(ny); strings.Contains(err.Error(), "rpc error") || !strings.Contains(err.Error(), "uid 7), and you are") {
		t.Errorf("another user's: %v", err)
	}
}
