package command

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc"
)

// fakeStopper is an agent holding objects, which records whether it was
// asked to stop.
type fakeStopper struct {
	objects []*pb.Object
	stopped bool
}

func (f *fakeStopper) List(context.Context, *pb.ListRequest, ...grpc.CallOption) (*pb.ListResponse, error) {
	return &pb.ListResponse{Objects: f.objects}, nil
}

func (f *fakeStopper) Stop(context.Context) error { f.stopped = true; return nil }

// twoNamespaces is what an agent holds for two configurations: a listener
// with one accepted connection in the default namespace, and an endpoint
// of namespace other connected to it.
func twoNamespaces() []*pb.Object {
	return []*pb.Object{
		{Address: "protection_domain.pd", Kind: pb.Kind_PROTECTION_DOMAIN, Status: pb.Status_READY},
		{Address: "listener.l", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING},
		{Address: "listener.l/conn/1", Parent: "listener.l", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED},
		{Address: "endpoint.x[0]@other", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED},
		{Address: "endpoint.x[1]@other", Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING},
	}
}

func runStop(t *testing.T, f *fakeStopper, force, terminal bool, answer string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	s := Meta{In: strings.NewReader(answer), Out: &out, Err: &errb, StdinTerminal: func(io.Reader) bool { return terminal }}
	code := stopAgent(context.Background(), f, &pb.InfoResponse{Pid: 42, Socket: "/run/a.sock"}, force, s)
	return code, out.String(), errb.String()
}

// Stopping an agent ends every connection of every namespace: it says how
// many and asks, unless -force.
func TestAgentStopAsks(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	const says = "The agent (pid 42) holds 5 objects of 2 namespaces (other, the default one), with 2 live connections: stopping it\ndisconnects and destroys them all."

	f := &fakeStopper{objects: twoNamespaces()}
	code, out, _ := runStop(t, f, false, true, "no\n")
	if code != 1 || f.stopped || !strings.Contains(out, says) || !strings.Contains(out, "Do you really want to stop the agent?") ||
		!strings.Contains(out, "Only 'yes' will be accepted") || !strings.Contains(out, "agent stop cancelled.") {
		t.Errorf("answered no: exit %d, stopped %v\n%s", code, f.stopped, out)
	}

	f = &fakeStopper{objects: twoNamespaces()}
	if code, out, _ := runStop(t, f, false, true, "yes\n"); code != 0 || !f.stopped || !strings.Contains(out, "Stopped the agent (pid 42)") {
		t.Errorf("answered yes: exit %d, stopped %v\n%s", code, f.stopped, out)
	}

	f = &fakeStopper{objects: twoNamespaces()}
	code, _, stderr := runStop(t, f, false, false, "yes\n")
	if code != 1 || f.stopped || !strings.Contains(stderr, "The agent was not stopped") || !strings.Contains(stderr, "standard input is not a terminal") ||
		!strings.Contains(stderr, "-force") || !strings.Contains(stderr, "5 objects of 2 namespaces") {
		t.Errorf("without a terminal: exit %d, stopped %v\n%s", code, f.stopped, stderr)
	}

	f = &fakeStopper{objects: twoNamespaces()}
	if code, out, _ := runStop(t, f, true, false, ""); code != 0 || !f.stopped || strings.Contains(out, "Do you really") {
		t.Errorf("-force: exit %d, stopped %v\n%s", code, f.stopped, out)
	}

	// Nothing to end, nothing to ask.
	f = &fakeStopper{}
	if code, out, _ := runStop(t, f, false, false, ""); code != 0 || !f.stopped || strings.Contains(out, "Do you really") {
		t.Errorf("an empty agent: exit %d, stopped %v\n%s", code, f.stopped, out)
	}

	t.Setenv("RDMAFORM_INPUT", "false")
	f = &fakeStopper{objects: twoNamespaces()}
	if code, _, stderr := runStop(t, f, false, true, "yes\n"); code != 1 || f.stopped || !strings.Contains(stderr, "RDMAFORM_INPUT=false") {
		t.Errorf("RDMAFORM_INPUT=false: exit %d, stopped %v\n%s", code, f.stopped, stderr)
	}
}
