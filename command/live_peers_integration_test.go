//go:build integration

package command

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// twoNamespacesOnOneAgent applies two configurations on one agent: a (in
// namespace a) holds listener.loop and one endpoint connected to it, b
// (in namespace b) two endpoints connected to a's listener. It returns
// them once the listener's three accepted connections are established.
func twoNamespacesOnOneAgent(t *testing.T, port int) (a, b *e2e) {
	t.Helper()
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	settings := func(e *e2e, namespace string) {
		os.WriteFile(filepath.Join(e.dir, "settings.rdma.hcl"), []byte("rdmaform {\n  agent {\n    socket    = \""+e.socket+"\"\n    namespace = \""+namespace+"\"\n  }\n}\n"), 0o644)
	}
	a = newE2E(t, fmt.Sprintf(`listener "loop" {
  address = %q
  port    = %d
  qp {}
}

endpoint "own" {
  address = listener.loop.address
  port    = listener.loop.port
  qp {}
}
`, addr, port))
	settings(a, "a")
	a.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	b = &e2e{t: t, dir: t.TempDir(), socket: a.socket, stop: func() {}}
	b.write(fmt.Sprintf(`endpoint "x" {
  count   = 2
  address = %q
  port    = %d
  qp {}
}
`, addr, port))
	settings(b, "b")
	b.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	c, err := client.Dial(context.Background(), a.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var shown string
	waitFor(t, 2*time.Minute, func() bool {
		list, err := c.List(context.Background(), &pb.ListRequest{})
		if err != nil {
			shown = err.Error()
			return false
		}
		n := 0
		shown = ""
		for _, o := range list.Objects {
			shown += fmt.Sprintf("%s %s %s\n", o.Address, o.Kind, o.Status)
			if o.Kind == pb.Kind_CONNECTION && o.Status == pb.Status_ESTABLISHED {
				n++
			}
		}
		return n == 3
	}, "the listener's three accepted connections established", &shown)
	return a, b
}

// Destroying a listener that another namespace's endpoints are connected
// to: the plan names them (its own endpoint it shows as destroyed), in
// text and in -json, and destroy ends those connections.
func TestPlanNamesAnotherNamespacesPeersOnTheFabric(t *testing.T) {
	a, b := twoNamespacesOnOneAgent(t, 7620)
	const cut = "listener.loop has 2 live connections that destroying it ends: endpoint.x[0] (namespace b) and endpoint.x[1] (namespace b)."
	out := a.expect(0, []string{"Warning: Destroying listener.loop cuts live connections of other configurations", "Plan: 0 to add, 0 to change, 2 to destroy."}, "plan", "-destroy", "-no-color")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), cut) {
		t.Fatalf("plan -destroy does not name b's endpoints:\n%s", out)
	}
	if strings.Contains(out, "endpoint.own (") {
		t.Fatalf("plan -destroy names the configuration's own endpoint as a peer:\n%s", out)
	}
	out = a.expect(0, []string{`"@level":"warn"`, "endpoint.x[0] (namespace b) and endpoint.x[1] (namespace b)"}, "plan", "-destroy", "-json")
	_ = out
	// b's own plan destroys only endpoints: nothing else is cut.
	out = b.expect(0, []string{"Plan: 0 to add, 0 to change, 2 to destroy."}, "plan", "-destroy", "-no-color")
	if strings.Contains(out, "live connections") {
		t.Fatalf("b's destroy plan warns:\n%s", out)
	}
	b.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
	out = a.expect(0, []string{"Plan: 0 to add, 0 to change, 2 to destroy."}, "plan", "-destroy", "-no-color")
	if strings.Contains(out, "live connections") {
		t.Fatalf("with b gone, a's destroy plan still warns:\n%s", out)
	}
	a.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// agent stop of an agent holding two namespaces' connections says what
// it ends, refuses without a terminal, and stops after a "yes".
func TestAgentStopAsksOnTheFabric(t *testing.T) {
	a, _ := twoNamespacesOnOneAgent(t, 7621)
	stop := func(terminal bool, stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runAgent(append([]string{"stop", "-socket=" + a.socket}, args...),
			Meta{In: strings.NewReader(stdin), Out: &out, Err: &errb, StdinTerminal: func(io.Reader) bool { return terminal }})
		t.Logf("agent stop %v (terminal %v) -> %d\n%s%s", args, terminal, code, out.String(), errb.String())
		return code, out.String(), errb.String()
	}
	t.Setenv("RDMAFORM_INPUT", "")
	says := fmt.Sprintf("The agent (pid %d) holds 7 objects of 2 namespaces (a, b), with 6 live connections", os.Getpid())
	code, _, errs := stop(false, "yes\n")
	if code != 1 || !strings.Contains(errs, says) || !strings.Contains(errs, "Add -force") {
		t.Fatalf("agent stop without a terminal: exit %d\n%s", code, errs)
	}
	code, out, _ := stop(true, "no\n")
	if code != 1 || !strings.Contains(out, says) || !strings.Contains(out, "agent stop cancelled.") {
		t.Fatalf("agent stop answered no: exit %d\n%s", code, out)
	}
	// Still running, all connected.
	a.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	if n := cmIDs(t, "7621"); n < 7 {
		t.Fatalf("kernel shows %d cm_ids on port 7621 after a refused stop, want the listener and 3 connections each way", n)
	}
	code, out, _ = stop(true, "yes\n")
	if code != 0 || !strings.Contains(out, "Stopped the agent") {
		t.Fatalf("agent stop answered yes: exit %d\n%s", code, out)
	}
	waitFor(t, time.Minute, func() bool { return cmIDs(t, "7621") == 0 }, "no cm_id on port 7621 after the agent stopped")
}
