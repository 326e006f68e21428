package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// osc retitles the terminal: what an agent's client, a peer or a state
// could put in a name, an address, a reject reason or an event.
const osc = "\x1b]0;owned\x07"

// oscShown is osc as every human output shows it.
const oscShown = `\x1b]0;owned\a`

// noControl fails if out holds a byte or character a terminal acts on
// (the outputs tested have no colour).
func noControl(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range out {
		if r < ' ' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e {
			t.Errorf("%s holds %U:\n%q", what, r, out)
			return
		}
	}
}

// status, its private data and -watch show what the agent sends escaped,
// as its error when the watch ends; -json carries it as JSON does.
func TestStatusEscapesWhatTheAgentSends(t *testing.T) {
	t.Parallel()
	evil := &pb.Object{Address: "endpoint.evil" + osc, Kind: pb.Kind_ENDPOINT, Status: pb.Status_REJECTED,
		LastError:           &pb.ErrorInfo{Call: "rdma_connect" + osc, ErrnoName: "ECONNREFUSED\u009b2J", Message: "go away" + osc},
		Facts:               &pb.Facts{RemoteAddr: "10.77.0.2:7471\u202e", Device: "rxe0\t" + osc, Port: 1},
		ReceivedPrivateData: []byte("hello" + osc)}
	up := &pb.Object{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
		Facts: &pb.Facts{LocalAddr: "10.77.0.1:4000\r", QpNum: 17, QpType: "rc\x1b[8m"}, ReceivedPrivateData: []byte("caf\xc3\xa9\u202e")}
	conn := &pb.Object{Address: "listener.l/conn/1\u202e", Parent: "listener.l", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED,
		LastEvent: "ESTABLISHED" + osc, ReceivedPrivateData: []byte("caf\xc3\xa9 \xff" + osc)}
	changed := &pb.Object{Address: evil.Address, Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING, LastEvent: "REJECTED: go away" + osc}
	f := &fakeAgent{
		objects:  []*pb.Object{evil, conn, up},
		snapshot: []*pb.Object{evil, conn},
		changes:  [][]*pb.Change{{{Object: changed}}},
		end:      status.Error(codes.Internal, "stream broken: "+osc),
	}
	sock := serveFakeAgent(t, f)
	code, out, errs := runStatusForTest("-agent="+sock, "-watch")
	if code != 1 {
		t.Fatalf("status -watch: exit %d\n%s%s", code, out, errs)
	}
	noControl(t, "status", out)
	noControl(t, "status's error", errs)
	for _, want := range []string{
		"endpoint.evil" + oscShown, "rdma_connect" + oscShown + `: ECONNREFUSED\u009b2J`, `10.77.0.1:4000\r`, `10.77.0.2:7471\u202e`,
		`rxe0\t` + oscShown + ":1", `17 rc\x1b[8m`, `listener.l/conn/1\u202e`, "ESTABLISHED" + oscShown,
		"hex 68656c6c6f1b5d303b6f776e656407", "hex 636166c3a9e280ae", // the private data, in hex
		"REJECTED: go away" + oscShown, // the watch's line
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "stream broken: "+oscShown) {
		t.Errorf("status's error lacks the agent's escaped words:\n%s", errs)
	}

	code, out, errs = runStatusForTest("-agent="+sock, "-json")
	if code != 0 || !strings.Contains(out, `"endpoint.evil\u001b]0;owned\u0007"`) {
		t.Errorf("status -json: exit %d\n%s%s", code, out, errs)
	}
}

// infoAgent is a fakeAgent that also says who it is.
type infoAgent struct {
	fakeAgent
	info *pb.InfoResponse
}

func (a *infoAgent) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return a.info, nil
}

func TestAgentStatusEscapesWhatTheAgentSays(t *testing.T) {
	a := &infoAgent{info: &pb.InfoResponse{Pid: 7, Socket: "/run/x.sock" + osc, LogFile: "/var/log/x\u202e", Version: "1.0" + osc}}
	a.objects = []*pb.Object{{Address: "endpoint.e" + osc, Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED}}
	sock := serveFakeAgent(t, a)
	t.Chdir(".")
	code, out, errs := stateCmd(t, t.TempDir(), "", "agent", "status", "-socket="+sock)
	if code != 0 {
		t.Fatalf("agent status: exit %d\n%s%s", code, out, errs)
	}
	noControl(t, "agent status", out)
	for _, want := range []string{"socket /run/x.sock" + oscShown, `log /var/log/x\u202e`, "version 1.0" + oscShown} {
		if !strings.Contains(out, want) {
			t.Errorf("agent status lacks %s:\n%s", want, out)
		}
	}
}

// apply's errors quote the agent and the peer's reject reason, escaped.
func TestApplyEscapesTheAgentsErrors(t *testing.T) {
	f := newMemFabric()
	f.fail["endpoint.client[0]"] = &agentfabric.CallError{Call: "rdma_connect", Errno: syscall.ECONNREFUSED, Name: "ECONNREFUSED",
		Message: "rdma_connect: REJECTED" + osc, Reason: "go away\u202e" + osc}
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 1 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errs)
	}
	noControl(t, "apply's output", out)
	noControl(t, "apply's errors", errs)
	if want := `REJECTED\x1b]0;owned\a (rejected: go away\u202e\x1b]0;owned\a)`; !strings.Contains(errs, want) {
		t.Errorf("apply's error lacks %s:\n%s", want, errs)
	}
}

// A string output of several lines shows as a heredoc, its text escaped;
// an output's name too, from a state anyone may have written. show and
// state show quote every string.
func TestOutputShowAndStateShowEscapeTheStatesText(t *testing.T) {
	st := strings.NewReplacer(
		`"outputs":{"addr":{"value":"10.0.0.1","type":"string"}`,
		`"outputs":{"addr":{"value":"one\u001b]0;owned\u0007\ntwo\n","type":"string"},"evil\u202e":{"value":"x\u009b","type":"string"}`,
		`"agent_handle":"h-1"`, `"agent_handle":"h-1\u001b]0;owned\u0007"`,
		`"mlx5_0"`, `"mlx5_0\u202e"`,
	).Replace(testState)
	dir := stateDir(t, st)
	for _, args := range [][]string{{"output"}, {"output", "addr"}, {"show"}, {"state", "show", "endpoint.client[3]"}, {"state", "list"}} {
		code, out, errs := stateCmd(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		noControl(t, strings.Join(args, " "), out)
		var want []string
		switch args[0] {
		case "output":
			want = []string{"<<EOT\none" + oscShown + "\ntwo\nEOT"}
			if len(args) == 1 {
				want = append(want, `evil\u202e = "x\u009b"`)
			}
		case "show":
			want = []string{`"one\x1b]0;owned\a\ntwo\n"`, `agent_handle  = "h-1\x1b]0;owned\a"`, `evil\u202e = "x\u009b"`}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %s:\n%s", args, w, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rdmaform.rdmastate")); err != nil {
		t.Fatal(err)
	}
}
