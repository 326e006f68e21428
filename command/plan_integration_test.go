//go:build integration

package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/state"
)

// e2e runs rdmaform commands in one configuration directory against an
// agent served by this process on a private socket.
type e2e struct {
	t      *testing.T
	dir    string
	socket string
	stop   func()
}

func newE2E(t *testing.T, configText string) *e2e {
	t.Helper()
	if os.Getenv("RDMAFORM_TEST_DEVICE") == "" {
		t.Fatal("RDMAFORM_TEST_DEVICE is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	e := &e2e{t: t, dir: t.TempDir()}
	sockDir := filepath.Join(t.TempDir(), "agent")
	os.Mkdir(sockDir, 0o700)
	e.socket = filepath.Join(sockDir, "agent.sock")
	settings := "rdmaform {\n  agent {\n    socket = \"" + e.socket + "\"\n  }\n}\n"
	os.WriteFile(filepath.Join(e.dir, "settings.rdma.hcl"), []byte(settings), 0o644)
	e.write(configText)
	e.startAgent()
	t.Cleanup(func() { e.stop() })
	return e
}

func (e *e2e) write(configText string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, "main.rdma.hcl"), []byte(configText), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) startAgent() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: e.socket, Version: "test", Stderr: io.Discard,
			Ready: func(*pb.InfoResponse) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		e.t.Fatalf("agent: %v", err)
	case <-time.After(20 * time.Second):
		e.t.Fatal("the agent did not get ready")
	}
	e.stop = func() { cancel(); <-done }
}

// rdmaform runs one command and returns its exit code and output.
func (e *e2e) rdmaform(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"-chdir=" + e.dir}, args...), Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	e.t.Logf("$ rdmaform %s -> %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	return code, out.String(), errb.String()
}

func (e *e2e) expect(wantCode int, wants []string, args ...string) string {
	e.t.Helper()
	code, out, errs := e.rdmaform(args...)
	if code != wantCode {
		e.t.Fatalf("rdmaform %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, wantCode, out, errs)
	}
	for _, w := range wants {
		if !strings.Contains(out+errs, w) {
			e.t.Fatalf("rdmaform %s: output lacks %q:\n%s%s", strings.Join(args, " "), w, out, errs)
		}
	}
	return out + errs
}

// cmIDs counts the kernel's cm_ids using port (its own view, not the
// agent's).
func cmIDs(t *testing.T, port string) int {
	t.Helper()
	out, err := exec.Command("rdma", "resource", "show", "cm_id").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show cm_id: %v\n%s", err, out)
	}
	return len(regexp.MustCompile(`:`+port+`\b`).FindAllString(string(out), -1))
}

func loopbackConfig(t *testing.T) string {
	b, err := os.ReadFile("../examples/loopback/main.rdma.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "10.77.0.1", os.Getenv("RDMAFORM_TEST_ADDR"))
}

// The end-to-end story on examples/loopback: plan, apply, no
// changes, an in-place update, a replacement through a saved plan (and a
// stale one refused), a cap over the device limit, drift after an agent
// restart healed by apply, destroy leaving no cm_id.
func TestPlanApplyDestroyEndToEnd(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)

	e.expect(2, []string{"# endpoint.client[3] will be created", "Plan: 6 to add, 0 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"listener.loop: Creation complete after", "Apply complete! Resources: 6 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	// Four endpoints, four accepted connections and the listener.
	if n := cmIDs(t, "7471"); n < 9 {
		t.Fatalf("kernel shows %d cm_id endpoints on port 7471 after apply, want at least 9", n)
	}
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")
	// A refresh reads every object's facts from the agent: it changes
	// nothing it does not decide (it recorded the protection domain's
	// device as null, and the next plan replaced everything).
	e.expect(0, []string{"Apply complete! Resources: 0 added, 0 changed, 0 destroyed."}, "refresh", "-no-color")
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")

	src = strings.Replace(src, `max_backoff = "5s"`, `max_backoff = "7s"`, 1)
	e.write(src)
	e.expect(2, []string{"will be updated in-place", `~ max_backoff = "5s" -> "7s"`, "Plan: 0 to add, 4 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Modifications complete after", "Resources: 0 added, 4 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")

	i := strings.LastIndex(src, "max_send_wr = 32")
	src = src[:i] + "max_send_wr = 48" + src[i+len("max_send_wr = 32"):]
	e.write(src)
	e.expect(2, []string{"-/+ endpoint \"client\" {", "~ max_send_wr = 32 -> 48 # forces replacement", "Plan: 4 to add, 0 to change, 4 to destroy."},
		"plan", "-no-color", "-detailed-exitcode", "-out=cap.plan")
	e.expect(0, nil, "plan", "-no-color", "-out=stale.plan")
	e.expect(0, []string{"Resources: 4 added, 0 changed, 4 destroyed."}, "apply", "-no-color", "cap.plan")
	e.expect(1, []string{"Saved plan is stale"}, "apply", "-no-color", "stale.plan")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")

	// rxe's max_sge (32) is below the configuration language's static
	// bound (64); its max_qp_wr is not.
	e.write(src[:i] + "max_send_sge = 64\n    max_send_wr = 48" + src[i+len("max_send_wr = 48"):])
	e.expect(1, []string{"max_send_sge = 64 exceeds " + os.Getenv("RDMAFORM_TEST_DEVICE") + "'s max_sge of"}, "plan", "-no-color")
	e.write(src)

	// An agent restart loses every object: drift, healed by apply; or,
	// with -refresh-only, only recorded (and then made again).
	e.stop()
	e.startAgent()
	e.expect(2, []string{"# endpoint.client[0] has been deleted", "# (because the agent no longer holds it)", "Plan: 6 to add"}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(2, []string{"# listener.loop has been deleted", "This is a refresh-only plan"}, "plan", "-refresh-only", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Apply complete! Resources: 0 added, 0 changed, 0 destroyed."}, "apply", "-refresh-only", "-auto-approve", "-no-color")
	if out := e.expect(0, nil, "state", "list"); strings.TrimSpace(out) != "" {
		t.Fatalf("the state still lists objects after apply -refresh-only:\n%s", out)
	}
	if n := cmIDs(t, "7471"); n != 0 {
		t.Fatalf("apply -refresh-only made %d cm_ids on port 7471", n)
	}
	e.expect(2, []string{"Plan: 6 to add, 0 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")

	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7471"); n != 0 {
		t.Fatalf("kernel shows %d cm_ids on port 7471 after destroy", n)
	}
}

// A refused connection fails the apply with the librdmacm call and errno,
// keeps what succeeded in the state, and leaves nothing half-made.
func TestApplyFailureNamesCallAndKeepsState(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
listener "up" {
  address = "`+addr+`"
  port    = 7481
}

endpoint "nobody_listens" {
  address = "`+addr+`"
  port    = 7482
  qp {}
  connect {
    timeout = "500ms"
  }
}
`)
	out := e.expect(1, []string{"Error: endpoint.nobody_listens: create failed: ", "Apply failed. Resources: 1 added"}, "apply", "-auto-approve", "-no-color")
	if !regexp.MustCompile(`rdma_\w+|REJECTED|rejected|ECONNREFUSED|ETIMEDOUT`).MatchString(out) {
		t.Fatalf("the error names no call or errno:\n%s", out)
	}
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(e.dir, "rdmaform.rdmastate")})
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	st := m.State()
	if len(st.Objects) != 1 || st.Objects["listener.up"] == nil {
		t.Fatalf("state after a partial apply: %v", st.Addresses())
	}
	if n := cmIDs(t, "7482"); n != 0 {
		t.Fatalf("the failed endpoint left %d cm_ids", n)
	}
	e.expect(0, []string{"Destroy complete! Resources: 1 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// examples/fanout: for_each over listeners, outputs recorded and stable,
// and create_before_destroy: each endpoint's replacement is established
// (under another agent name) before the endpoint it replaces is
// destroyed; the next plan finds nothing to do, and the replacement after
// takes the address back.
func TestFanoutEndToEnd(t *testing.T) {
	b, err := os.ReadFile("../examples/fanout/main.rdma.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.ReplaceAll(string(b), "10.77.0.1", os.Getenv("RDMAFORM_TEST_ADDR"))
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added", "Outputs:", "blocks   = 7472"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	for i, retries := range []string{"5", "4"} {
		e.write(strings.Replace(src, "retry_count     = 6", "retry_count     = "+retries, 1))
		out := e.expect(0, []string{`+/- endpoint "svc" {`, "Resources: 3 added, 0 changed, 3 destroyed."}, "apply", "-auto-approve", "-no-color")
		if strings.Contains(out, "Warning") {
			t.Fatalf("replacement %d warns:\n%s", i+1, out)
		}
		for _, k := range []string{"metadata", "blocks", "journal"} {
			a := `endpoint.svc["` + k + `"]`
			made := strings.Index(out, a+": Creation complete")
			gone := strings.Index(out, a+" (deposed object ")
			if made < 0 || gone < 0 || gone < made {
				t.Fatalf("replacement %d: %s was not created before the endpoint it replaces was destroyed:\n%s", i+1, a, out)
			}
		}
		for _, port := range []string{"7471", "7472", "7473"} {
			// The listener, the connection it accepted, the endpoint.
			if n := cmIDs(t, port); n != 3 {
				t.Fatalf("replacement %d: %d cm_ids on port %s, want 3", i+1, n, port)
			}
		}
		e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
		// The replacements are held under other names (the first under a #
		// suffix); status, run where the configuration is, shows each
		// under its address, and its accepted connection under its
		// listener's.
		status := e.expect(0, []string{`endpoint.svc["metadata"]`, `listener.svc["journal"]/conn/`}, "status")
		if strings.Contains(status, "#") {
			t.Fatalf("replacement %d: status shows the agent's names:\n%s", i+1, status)
		}
	}
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	for _, port := range []string{"7471", "7472", "7473"} {
		if n := cmIDs(t, port); n != 0 {
			t.Fatalf("%d cm_ids left on port %s", n, port)
		}
	}
}

// An attribute computed from another object's attribute known only after
// apply (here b's private data carries a's QP number, c's through a
// local) is evaluated during apply, connects, is recorded and shown, and
// stays put in the next plan.
func TestAfterApplyValuesEndToEnd(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
listener "l" {
  address = "`+addr+`"
  port    = 7491
}

endpoint "a" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
}

endpoint "b" {
  address = listener.l.address
  port    = listener.l.port
  qp {}

  connect {
    private_data = "peer-qp=${endpoint.a.qp_num}"
  }
}

locals {
  a_qp = endpoint.a.qp_num
}

endpoint "c" {
  address = listener.l.address
  port    = listener.l.port
  qp {}

  connect {
    private_data = "via-local=${local.a_qp}"
  }
}

output "a_qp" {
  value = endpoint.a.qp_num
}

output "b_private_data" {
  value = endpoint.b.connect.private_data
}

output "c_private_data" {
  value = endpoint.c.connect.private_data
}
`)
	e.expect(0, []string{"private_data    = (known after apply)", "Apply complete! Resources: 4 added"}, "apply", "-auto-approve", "-no-color")
	qp := strings.TrimSpace(e.expect(0, nil, "output", "-raw", "a_qp"))
	if n, err := strconv.Atoi(qp); err != nil || n <= 0 {
		t.Fatalf("a's qp_num: %q", qp)
	}
	if got := strings.TrimSpace(e.expect(0, nil, "output", "-raw", "b_private_data")); got != "peer-qp="+qp {
		t.Fatalf("b's private data %q, want peer-qp=%s", got, qp)
	}
	if got := strings.TrimSpace(e.expect(0, nil, "output", "-raw", "c_private_data")); got != "via-local="+qp {
		t.Fatalf("c's private data (through a local) %q, want via-local=%s", got, qp)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 4 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// An endpoint without a reconnect policy would stay disconnected once its
// listener is replaced: the plan replacing the listener replaces it too.
// Replaced alone (-target), the listener leaves it disconnected: the next
// plan replaces it, saying why, and its apply brings the connection back.
func TestDisconnectedEndpointIsReplaced(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
listener "l" {
  address = "`+addr+`"
  port    = 7493
}

endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
}
`)
	e.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"(because the listener it connects to is replaced: without a reconnect block its connection would end)",
		"Resources: 2 added, 0 changed, 2 destroyed."}, "apply", "-auto-approve", "-no-color", "-replace=listener.l")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Resources: 1 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color", "-replace=listener.l", "-target=listener.l")
	var out string
	waitFor(t, 10*time.Second, func() bool {
		_, out, _ = e.rdmaform("plan", "-no-color", "-detailed-exitcode")
		return strings.Contains(out, "(because the agent reports it disconnected")
	}, "a plan replacing the disconnected endpoint", &out)
	// Its connection ended for good: the agent released its QP and port,
	// which status no longer shows.
	if status := e.expect(0, nil, "status", "-no-color"); !regexp.MustCompile(`endpoint\.e +endpoint +disconnected +- +\S+ +\S+ +- `).MatchString(status) {
		t.Fatalf("status of the disconnected endpoint:\n%s", status)
	}
	e.expect(0, []string{"Resources: 1 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	if status := e.expect(0, nil, "status"); !regexp.MustCompile(`endpoint\.e +endpoint +established`).MatchString(status) {
		t.Fatalf("status after the apply:\n%s", status)
	}
	e.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// Two configurations using the same addresses against one agent: the
// second is refused until it has a namespace of its own; then each plans,
// applies and destroys its own objects only.
func TestTwoConfigurationsWithTheSameAddresses(t *testing.T) {
	src := loopbackConfig(t)
	a := newE2E(t, src)
	a.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")

	b := &e2e{t: t, dir: t.TempDir(), socket: a.socket, stop: func() {}}
	other := strings.Replace(src, "port    = 7471", "port    = 7472", 1)
	b.write(other)
	os.WriteFile(filepath.Join(b.dir, "settings.rdma.hcl"), []byte("rdmaform {\n  agent {\n    socket = \""+a.socket+"\"\n  }\n}\n"), 0o644)
	// Refused at plan, before anything is made.
	b.expect(1, []string{"Error: Object already held by the agent", "named protection_domain.rxe", "give one of them a namespace of its own"}, "apply", "-auto-approve", "-no-color")
	os.WriteFile(filepath.Join(b.dir, "settings.rdma.hcl"), []byte("rdmaform {\n  agent {\n    socket    = \""+a.socket+"\"\n    namespace = \"b\"\n  }\n}\n"), 0o644)
	b.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	status := b.expect(0, []string{"listener.loop@b", "endpoint.client[3]@b"}, "status", "-no-color")
	if !regexp.MustCompile(`(?m)^listener\.loop\s`).MatchString(status) {
		t.Fatalf("status lacks the first configuration's listener.loop:\n%s", status)
	}
	if n := cmIDs(t, "7472"); n < 9 {
		t.Fatalf("kernel shows %d cm_ids on port 7472, want at least 9", n)
	}
	a.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	b.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	b.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7472"); n != 0 {
		t.Fatalf("%d cm_ids on port 7472 after b's destroy", n)
	}
	a.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	a.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// Two configurations on one agent, each in its namespace (the audit's
// case): b moving its listener to a's port is refused by plan, and by
// apply before it destroys anything; apply without the refresh (so
// without the check) destroys b's listener and endpoints and fails,
// naming a's listener.
func TestPortHeldByAnotherConfigurationOnTheFabric(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	src := func(port int) string {
		return fmt.Sprintf(`variable "port" {
  type    = number
  default = %d
}

listener "loop" {
  address = %q
  port    = var.port
  qp {}
}

endpoint "c" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
  qp {}
}
`, port, addr)
	}
	settings := func(e *e2e, namespace string) {
		os.WriteFile(filepath.Join(e.dir, "settings.rdma.hcl"), []byte("rdmaform {\n  agent {\n    socket    = \""+e.socket+"\"\n    namespace = \""+namespace+"\"\n  }\n}\n"), 0o644)
	}
	a := newE2E(t, src(7610))
	settings(a, "a")
	a.expect(0, []string{"Apply complete! Resources: 3 added"}, "apply", "-auto-approve", "-no-color")
	b := &e2e{t: t, dir: t.TempDir(), socket: a.socket, stop: func() {}}
	b.write(src(7611))
	settings(b, "b")
	b.expect(0, []string{"Apply complete! Resources: 3 added"}, "apply", "-auto-approve", "-no-color")

	refusal := []string{"Error: Port held by another configuration", "main.rdma.hcl:8:",
		fmt.Sprintf("listener.loop: %s:7610 (tcp) is held by listener.loop@a, which this agent holds for another configuration; choose another port, or destroy that listener first.", addr)}
	b.expect(1, refusal, "plan", "-no-color", "-var", "port=7610")
	b.expect(1, refusal, "apply", "-auto-approve", "-no-color", "-var", "port=7610")
	if n := cmIDs(t, "7611"); n < 5 {
		t.Fatalf("kernel shows %d cm_ids on port 7611 after the refused apply, want b's listener and 2 connections each way", n)
	}
	b.expect(1, []string{fmt.Sprintf("Error: listener.loop: create failed: rdma_create_ep: address already in use (EADDRINUSE): %s:7610 is held by listener.loop@a", addr)},
		"apply", "-auto-approve", "-no-color", "-refresh=false", "-var", "port=7610")
	b.expect(0, nil, "destroy", "-auto-approve", "-no-color", "-var", "port=7610")
	a.expect(0, []string{"Destroy complete! Resources: 3 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// Renaming blocks with moved blocks keeps the live connections: the plan
// only relabels, apply touches no object, and the QPs are the same.
func TestMovedBlocksKeepTheConnections(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	qps := regexp.MustCompile(`\d+ rc`)
	before := qps.FindAllString(e.expect(0, nil, "status", "-no-color"), -1)
	e.write(strings.NewReplacer(`endpoint "client"`, `endpoint "clients"`).Replace(src) + "\nmoved {\n  from = endpoint.client\n  to   = endpoint.clients\n}\n")
	e.expect(2, []string{"# endpoint.client[3] has moved to endpoint.clients[3]", "Plan: 0 to add, 0 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Apply complete! Resources: 0 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	// The agent holds them under their first names; status, run in the
	// configuration's directory, shows their addresses.
	status := e.expect(0, []string{"endpoint.clients[3]"}, "status", "-no-color")
	if strings.Contains(status, "endpoint.client[") {
		t.Fatalf("status shows the agent's first names:\n%s", status)
	}
	if after := qps.FindAllString(status, -1); strings.Join(after, ",") != strings.Join(before, ",") || len(after) < 8 {
		t.Fatalf("the QPs changed across the moves: %v, then %v\n%s", before, after, status)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7471"); n != 0 {
		t.Errorf("%d cm_ids on port 7471 after destroy", n)
	}
}

// A removed block with destroy = false forgets the endpoints: the state
// drops them, and their connections stay up in the agent.
func TestRemovedBlockForgetsWithoutDisconnecting(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	i, j := strings.Index(src, `endpoint "client"`), strings.LastIndex(src, "}")
	e.write(src[:i] + src[j+1:] + "\nremoved {\n  from = endpoint.client\n  lifecycle {\n    destroy = false\n  }\n}\n")
	e.expect(0, []string{"Apply complete! Resources: 0 added, 0 changed, 0 destroyed, 4 forgotten."}, "apply", "-auto-approve", "-no-color")
	status := e.expect(0, nil, "status", "-no-color")
	if n := strings.Count(status, "established"); n < 8 {
		t.Fatalf("the forgotten endpoints' connections are not all up (%d established):\n%s", n, status)
	}
	if out := e.expect(0, nil, "state", "list"); strings.Contains(out, "endpoint.") {
		t.Fatalf("the state still lists endpoints:\n%s", out)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
}

// Postconditions check what the agent reports of the objects made:
// a connection's status and device pass, a wrong expectation fails the
// plan for an unchanged object, and the apply that makes one with its
// message, keeping the object.
func TestPostconditionsOnLiveFacts(t *testing.T) {
	dev := os.Getenv("RDMAFORM_TEST_DEVICE")
	src := `
listener "l" {
  address = "` + os.Getenv("RDMAFORM_TEST_ADDR") + `"
  port    = 7490
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  lifecycle {
    postcondition {
      condition     = self.status == "established" && self.device == "` + dev + `"
      error_message = "endpoint.e is ${self.status} on ${self.device}."
    }
  }
}
`
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	e.write(strings.Replace(src, `self.device == "`+dev+`"`, `self.device == "mlx5_9"`, 1) + "\n")
	// The object is unchanged: plan checks the postcondition against it
	// as the agent reports it, as Terraform does.
	e.expect(1, []string{"Resource postcondition failed", "endpoint.e is established on " + dev + "."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, nil, "taint", "endpoint.e")
	e.expect(1, []string{"endpoint.e: postcondition failed: endpoint.e is established on " + dev + "."}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// A state lost while the agent kept the objects: apply refuses to make
// them again and points at import; import adopts them one by one (the
// protection domain an endpoint uses first), refusing an object that
// differs from the configuration or an address already managed; then plan
// finds nothing to do and destroy removes everything from the kernel.
func TestImportAdoptsWhatALostStateLeft(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	for _, f := range []string{"rdmaform.rdmastate", "rdmaform.rdmastate.backup"} {
		os.Remove(filepath.Join(e.dir, f))
	}
	e.expect(1, []string{"Error: Object already held by the agent", `"rdmaform import protection_domain.rxe"`}, "apply", "-auto-approve", "-no-color")

	e.expect(1, []string{"Error: Cannot import endpoint.client[0]", "refers to protection_domain.rxe, listener.loop, which the state does not hold: import them first"}, "import", "-no-color", "endpoint.client[0]")
	e.expect(0, []string{`protection_domain.rxe: Importing from ID "protection_domain.rxe"...`, "Import successful!"}, "import", "-no-color", "protection_domain.rxe")
	e.expect(0, []string{"Import successful!"}, "import", "-no-color", "listener.loop")

	e.write(strings.Replace(src, "size     = 64", "size     = 128", 1))
	e.expect(1, []string{"does not match the configuration of endpoint.client[0]: probe.size differ"}, "import", "-no-color", "endpoint.client[0]")
	e.write(src)
	for _, a := range []string{"endpoint.client[0]", "endpoint.client[1]", "endpoint.client[2]", "endpoint.client[3]"} {
		e.expect(0, []string{"Import successful!"}, "import", "-no-color", a)
	}
	e.expect(1, []string{"Error: Resource already managed by rdmaform"}, "import", "-no-color", "endpoint.client[0]")
	e.expect(1, []string{"Error: Configuration for import target does not exist"}, "import", "-no-color", "endpoint.client[9]")
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7471"); n != 0 {
		t.Errorf("%d cm_ids on port 7471 after destroy", n)
	}
}

// The same lost state, adopted with import blocks: plan shows the imports,
// one apply adopts every object in dependency order (an object that
// differs from its configuration is refused, and what depends on it is
// skipped), and the QP numbers are the agent's own, unchanged.
func TestImportBlocksAdoptWhatALostStateLeft(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	qpNum := regexp.MustCompile(`qp_num += \d+`)
	before := qpNum.FindString(e.expect(0, nil, "state", "show", "endpoint.client[2]"))
	for _, f := range []string{"rdmaform.rdmastate", "rdmaform.rdmastate.backup"} {
		os.Remove(filepath.Join(e.dir, f))
	}
	blocks := "\nimport {\n  to = protection_domain.rxe\n}\nimport {\n  to = listener.loop\n}\n"
	for i := 0; i < 4; i++ {
		blocks += fmt.Sprintf("import {\n  to = endpoint.client[%d]\n}\n", i)
	}
	e.write(strings.Replace(src, "size     = 64", "size     = 128", 1) + blocks)
	e.expect(2, []string{"# endpoint.client[3] will be imported", "Plan: 6 to import, 0 to add, 0 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(1, []string{"listener.loop: Import complete", "does not match the configuration of endpoint.client[0]: probe.size differ"}, "apply", "-auto-approve", "-no-color")
	e.write(src + blocks)
	e.expect(0, []string{"endpoint.client[0]: Importing... [id=endpoint.client[0]]", "Apply complete! Resources: 4 imported, 0 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")
	if after := qpNum.FindString(e.expect(0, nil, "state", "show", "endpoint.client[2]")); before == "" || after != before {
		t.Errorf("endpoint.client[2]'s QP number through the import: %q, then %q", before, after)
	}
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7471"); n != 0 {
		t.Errorf("%d cm_ids on port 7471 after destroy", n)
	}
}

// Addresses this host does not have are refused when planning, with the
// line: a listener's (apply failed with EADDRNOTAVAIL), and an
// endpoint's toward a listener in another port space.
func TestPlanRefusesAddressesThisHostCannotUse(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
listener "ghost" {
  address = "10.77.0.99"
  port    = 7604
}
`)
	e.expect(1, []string{"listener.ghost: 10.77.0.99 is not an address of this host", "main.rdma.hcl:3:"}, "plan", "-no-color")
	e.write(`
listener "ib" {
  address    = "` + addr + `"
  port       = 7605
  port_space = "ib"
}
endpoint "tcp" {
  address = listener.ib.address
  port    = listener.ib.port
}
`)
	e.expect(1, []string{"Port space mismatch", "endpoint.tcp connects to port 7605 in port space tcp, but listener.ib listens there in port space ib"}, "plan", "-no-color")
	// RDMA_PS_IPOIB on Soft-RoCE, an Ethernet port: rdma_create_ep would
	// fail with EINVAL, so the plan refuses it at the port_space.
	e.write(`
listener "ipoib" {
  address    = "` + addr + `"
  port       = 7606
  port_space = "ipoib"
}
`)
	e.expect(1, []string{"Port space needs InfiniBand", `listener.ipoib: port_space = "ipoib" needs an InfiniBand port`, "link layer is Ethernet", "main.rdma.hcl:5:"}, "plan", "-no-color")
	// Responder resources over the device's max_qp_rd_atom (128 on
	// Soft-RoCE): rdma_accept would fail with EINVAL.
	e.write(`
listener "rd" {
  address = "` + addr + `"
  port    = 7607
  qp {}
  accept {
    responder_resources = 4000 % 256
  }
}
`)
	e.expect(1, []string{"Exceeds the device's limit", "listener.rd: accept.responder_resources = 160 exceeds rxe0's max_qp_rd_atom of", "rdma_accept would fail with EINVAL"}, "plan", "-no-color")
}

// replace_triggered_by on the real fabric: a listener replaced replaces
// the endpoint that names it (a new QP), and the next plan finds nothing
// to do.
func TestReplaceTriggeredByOnTheFabric(t *testing.T) {
	src := `
listener "l" {
  address = "` + os.Getenv("RDMAFORM_TEST_ADDR") + `"
  port    = 7520
  qp {
    max_send_wr = 16
  }
}
endpoint "bound" {
  address = listener.l.address
  port    = 7520
  qp {}
  reconnect {}
  lifecycle {
    replace_triggered_by = [listener.l]
  }
}
`
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	qpNum := regexp.MustCompile(`qp_num += \d+`)
	before := qpNum.FindString(e.expect(0, nil, "state", "show", "endpoint.bound"))
	e.write(strings.Replace(src, "max_send_wr = 16", "max_send_wr = 32", 1))
	e.expect(2, []string{"# endpoint.bound will be replaced due to changes in replace_triggered_by", "Plan: 2 to add, 0 to change, 2 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Apply complete! Resources: 2 added, 0 changed, 2 destroyed."}, "apply", "-auto-approve", "-no-color")
	if after := qpNum.FindString(e.expect(0, nil, "state", "show", "endpoint.bound")); before == "" || after == before {
		t.Errorf("endpoint.bound's QP: %q, then %q: not replaced", before, after)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7520"); n != 0 {
		t.Errorf("%d cm_ids on port 7520 after destroy", n)
	}
}

// A QP whose sends and receives exceed the device's max_cqe (32767 on
// rxe0) is refused when planning, though each fits max_qp_wr (apply
// failed at ibv_create_cq).
func TestPlanRefusesCapsOverMaxCQE(t *testing.T) {
	e := newE2E(t, `
listener "wr" {
  address = "`+os.Getenv("RDMAFORM_TEST_ADDR")+`"
  port    = 7611
  qp {
    max_send_wr = 40000
  }
}
`)
	e.expect(1, []string{"listener.wr: max_send_wr + max_recv_wr = 40064 completion entries, more than " + os.Getenv("RDMAFORM_TEST_DEVICE") + "'s max_cqe", "main.rdma.hcl:6:"}, "plan", "-no-color")
}

// A dynamic block turns an endpoint's probe on and off on the fabric (an
// in-place update each way), and apply -json reports the real QP numbers
// in Terraform's UI messages.
func TestDynamicProbeAndApplyJSONOnTheFabric(t *testing.T) {
	src := `
variable "probe" {
  type    = bool
  default = false
}
listener "l" {
  address = "` + os.Getenv("RDMAFORM_TEST_ADDR") + `"
  port    = 7531
  qp {}
  accept {
    echo = true
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  dynamic "probe" {
    for_each = var.probe ? ["20ms"] : []
    content {
      interval = probe.value
    }
  }
}
`
	e := newE2E(t, src)
	out := e.expect(0, []string{`"type":"apply_complete"`, `"id_key":"qp_num"`, `"operation":"apply"`}, "apply", "-json", "-auto-approve")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("apply -json printed a line that is not JSON: %q", line)
		}
	}
	e.expect(2, []string{"+ probe {", "Plan: 0 to add, 1 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode", "-var", "probe=true")
	e.expect(0, []string{"1 changed"}, "apply", "-auto-approve", "-no-color", "-var", "probe=true")
	deadline := time.Now().Add(20 * time.Second)
	for !regexp.MustCompile(`endpoint\.e +endpoint +established .* [0-9.]+(µs|ms)`).MatchString(e.expect(0, nil, "status")) {
		if time.Now().After(deadline) {
			t.Fatalf("no probe round trip in status after 20 s:\n%s", e.expect(0, nil, "status"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.expect(2, []string{"- probe {", "Plan: 0 to add, 1 to change, 0 to destroy."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{`"operation":"destroy"`}, "destroy", "-json", "-auto-approve")
	if n := cmIDs(t, "7531"); n != 0 {
		t.Errorf("%d cm_ids on port 7531 after destroy", n)
	}
}

// An endpoint with a reconnect policy reconnects, on a new QP, when its
// listener is replaced: the next plan shows it changed and its output
// with the new qp_num, apply records it, and the QP the state now names
// is the kernel's.
func TestReconnectedEndpointIsRefreshedOnTheFabric(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
listener "l" {
  address = "`+addr+`"
  port    = 7608
  qp {}
}
endpoint "k" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  reconnect {
    min_backoff = "100ms"
  }
}
output "k_qp" {
  value = endpoint.k.qp_num
}
`)
	e.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	_, first, _ := e.rdmaform("output", "-raw", "k_qp")
	e.expect(0, []string{"Resources: 1 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color", "-replace=listener.l", "-target=listener.l")
	var out string
	waitFor(t, 20*time.Second, func() bool {
		_, out, _ = e.rdmaform("plan", "-no-color")
		// Reconnecting first (its status), then on a new QP.
		return strings.Contains(out, "# endpoint.k has changed") && strings.Contains(out, "~ qp_num")
	}, "a plan showing the reconnected endpoint", &out)
	for _, want := range []string{"~ qp_num", first + " -> ", "Changes to Outputs:"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	e.expect(0, []string{"Apply complete! Resources: 0 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	_, now, _ := e.rdmaform("output", "-raw", "k_qp")
	if now == first || now == "" {
		t.Fatalf("output k_qp = %q after the reconnect, was %q", now, first)
	}
	qps, err := exec.Command("rdma", "resource", "show", "qp").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show qp: %v\n%s", err, qps)
	}
	if !regexp.MustCompile(`lqpn ` + regexp.QuoteMeta(now) + `\b`).Match(qps) {
		t.Errorf("the kernel has no QP %s:\n%s", now, qps)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")

	// The listener goes for good: the endpoint keeps reconnecting, and
	// the refresh records its status, which a check sees.
	e.write(`
endpoint "k" {
  address = "` + addr + `"
  port    = 7608
  qp {}
  reconnect {
    min_backoff = "100ms"
  }
}
check "up" {
  assert {
    condition     = endpoint.k.status == "established"
    error_message = "endpoint.k is ${endpoint.k.status}"
  }
}
`)
	e.expect(0, []string{"Resources: 0 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color")
	var errs string
	waitFor(t, 20*time.Second, func() bool {
		_, out, errs = e.rdmaform("plan", "-no-color")
		return strings.Contains(out, `"established" -> "reconnecting"`)
	}, "a plan showing the endpoint reconnecting", &out)
	if !strings.Contains(errs, "endpoint.k is reconnecting") {
		t.Errorf("the check did not see the live status:\n%s%s", out, errs)
	}
	e.expect(0, []string{"Destroy complete! Resources: 1 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// An apply killed with SIGKILL in the middle of making 300 endpoints
// leaves the state naming every object it had asked the agent for: the
// next plan adopts those the agent made (no "already exists"), apply
// makes the rest, and destroy leaves no cm_id on the port.
func TestKilledApplyIsRecoveredOnTheFabric(t *testing.T) {
	addr, port := os.Getenv("RDMAFORM_TEST_ADDR"), "7613"
	e := newE2E(t, fmt.Sprintf(`
listener "l" {
  address = %q
  port    = %s
}
endpoint "e" {
  count   = 300
  address = listener.l.address
  port    = listener.l.port
}
`, addr, port))
	c, out := e.applyUntil("Creation complete", 20)
	c.Process.Kill()
	c.Wait()
	made := strings.Count(string(out.Bytes()), "Creation complete")
	t.Logf("killed apply after %d creations were reported", made)
	plan := e.expect(0, nil, "plan", "-no-color")
	if strings.Contains(plan, "already exists") {
		t.Fatalf("plan after the killed apply:\n%s", plan)
	}
	if made < 301 && !strings.Contains(plan, "an interrupted apply") && !strings.Contains(plan, "will be created") {
		t.Fatalf("plan after the killed apply says nothing of what it left:\n%s", plan)
	}
	e.expect(0, []string{"Apply complete!"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-detailed-exitcode", "-no-color")
	_, list, _ := e.rdmaform("state", "list")
	if n := strings.Count(list, "endpoint.e["); n != 300 {
		t.Fatalf("the state lists %d endpoints after the recovery, want 300", n)
	}
	e.expect(0, []string{"Destroy complete!"}, "destroy", "-auto-approve", "-no-color")
	waitFor(t, 30*time.Second, func() bool { return cmIDs(t, port) == 0 }, "no cm_id on the port after destroy")
}

// Two workspaces of one configuration on one agent: each has its own state
// and its own objects (the agent names the second's @staging), ports from
// rdmaform.workspace; each destroy leaves the other's connections, checked
// in the kernel's own view.
func TestWorkspacesOnTheFabric(t *testing.T) {
	src := strings.Replace(loopbackConfig(t), "port    = 7471", `port    = rdmaform.workspace == "default" ? 7614 : 7615`, 1)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{`Created and switched to workspace "staging"!`}, "workspace", "new", "staging")
	e.expect(2, []string{"Plan: 6 to add", "7615"}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	status := e.expect(0, []string{"listener.loop@staging", "endpoint.client[3]@staging"}, "status", "-no-color")
	if !regexp.MustCompile(`(?m)^listener\.loop\s`).MatchString(status) {
		t.Fatalf("status lacks the default workspace's listener.loop:\n%s", status)
	}
	if a, b := cmIDs(t, "7614"), cmIDs(t, "7615"); a < 9 || b < 9 {
		t.Fatalf("kernel shows %d cm_ids on port 7614 and %d on 7615, want at least 9 each", a, b)
	}
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	waitFor(t, 30*time.Second, func() bool { return cmIDs(t, "7615") == 0 }, "no cm_id on staging's port after its destroy")
	if n := cmIDs(t, "7614"); n < 9 {
		t.Fatalf("the default workspace's connections went with staging's: %d cm_ids on 7614", n)
	}
	e.expect(0, nil, "workspace", "select", "default")
	e.expect(0, []string{"Deleted workspace \"staging\"!"}, "workspace", "delete", "staging")
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	waitFor(t, 30*time.Second, func() bool { return cmIDs(t, "7614") == 0 }, "no cm_id on the default workspace's port after its destroy")
}

// An endpoint whose listener went, reconnecting on the fabric, holds no
// QP: the refresh shows its qp_num going to null (not the ended
// connection's, which the kernel no longer has) and records it.
func TestReconnectingEndpointHasNoQPOnTheFabric(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, `
variable "up" {
  default = true
}
listener "l" {
  count   = var.up ? 1 : 0
  address = "`+addr+`"
  port    = 7609
  qp {}
}
endpoint "k" {
  address    = "`+addr+`"
  port       = 7609
  qp {}
  reconnect {
    min_backoff = "100ms"
  }
  depends_on = [listener.l]
}
`)
	e.expect(0, []string{"Apply complete! Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"Resources: 0 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color", "-var", "up=false")
	var out string
	waitFor(t, 20*time.Second, func() bool {
		_, out, _ = e.rdmaform("plan", "-refresh-only", "-no-color", "-var", "up=false")
		return strings.Contains(out, "# (the agent reports it reconnecting: its connection ended, and with it its QP and port)")
	}, "a refresh-only plan showing the endpoint without its QP", &out)
	if !regexp.MustCompile(`qp_num\s+= \d+ -> null`).MatchString(out) {
		t.Errorf("the plan does not show qp_num going to null:\n%s", out)
	}
	e.expect(0, nil, "apply", "-refresh-only", "-auto-approve", "-no-color", "-var", "up=false")
	if out := e.expect(0, nil, "state", "show", "endpoint.k"); regexp.MustCompile(`qp_num\s+= \d`).MatchString(out) {
		t.Errorf("the state keeps a QP for the reconnecting endpoint:\n%s", out)
	}
	e.expect(0, []string{"Destroy complete!"}, "destroy", "-auto-approve", "-no-color", "-var", "up=false")
}

// Ctrl-C during an apply whose endpoint connects to a peer that never
// answers: apply does not wait out the connect (30 s) but drops the
// endpoint, says so, records nothing of it, and exits 1; the next plan
// simply makes it.
func TestInterruptCancelsAConnectToAnUnreachablePeer(t *testing.T) {
	addr, port := os.Getenv("RDMAFORM_TEST_ADDR"), "7621"
	nobody := unanswered(addr)
	e := newE2E(t, fmt.Sprintf(`
listener "l" {
  address = %q
  port    = %s
}
endpoint "hang" {
  address = %q
  port    = %s
  qp {}
  depends_on = [listener.l]
}
`, addr, port, nobody, port))
	c, out := e.applyUntil("endpoint.hang: Creating...", 1)
	time.Sleep(time.Second)
	start := time.Now()
	c.Process.Signal(os.Interrupt)
	err := c.Wait()
	took := time.Since(start)
	t.Logf("apply exited %v after the interrupt (%v):\n%s", took, err, out.Bytes())
	if c.ProcessState.ExitCode() != 1 || took > 10*time.Second {
		t.Fatalf("apply exited %d after %v, want 1 within 10s", c.ProcessState.ExitCode(), took)
	}
	for _, want := range []string{"endpoint.hang: Creation cancelled after", "Cancelled before they were established (the agent dropped them) (1): endpoint.hang (create)", "Apply interrupted. Resources: 1 added"} {
		if !strings.Contains(string(out.Bytes()), want) {
			t.Errorf("apply's output lacks %q", want)
		}
	}
	_, list, _ := e.rdmaform("state", "list")
	if list != "listener.l\n" {
		t.Errorf("state list after the interrupt: %q", list)
	}
	e.expect(2, []string{"# endpoint.hang will be created", "Plan: 1 to add, 0 to change, 0 to destroy."}, "plan", "-detailed-exitcode", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 1 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// timeouts.create bounds an endpoint's create: a connect to a peer that
// never answers fails after it (not after the agent's default 30 s),
// naming rdma_connect and ETIMEDOUT; a change of it is an in-place
// update that touches no connection.
func TestCreateTimeoutBoundsTheConnect(t *testing.T) {
	addr, port := os.Getenv("RDMAFORM_TEST_ADDR"), "7622"
	nobody := unanswered(addr)
	config := func(hang bool, create string) string {
		s := fmt.Sprintf(`
listener "l" {
  address = %q
  port    = %s
}
endpoint "ok" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  timeouts {
    create = %q
  }
}
`, addr, port, create)
		if hang {
			s += fmt.Sprintf(`
endpoint "hang" {
  address = %q
  port    = %s
  qp {}
  timeouts {
    create = "2s"
  }
}
`, nobody, port)
		}
		return s
	}
	e := newE2E(t, config(true, "5s"))
	start := time.Now()
	e.expect(1, []string{"endpoint.hang: create failed", "no ESTABLISHED within 2s of rdma_connect", "or the timeouts.create bound of 2s is shorter than a connect takes", "ETIMEDOUT", "Apply failed. Resources: 2 added"}, "apply", "-auto-approve", "-no-color")
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("the apply took %v with timeouts.create = 2s", took)
	}
	_, before, _ := e.rdmaform("state", "show", "endpoint.ok")
	e.write(config(false, "7s"))
	e.expect(0, []string{"# endpoint.ok will be updated in-place", `~ create = "5s" -> "7s"`, "Plan: 0 to add, 1 to change, 0 to destroy."}, "plan", "-no-color")
	e.expect(0, []string{"Apply complete! Resources: 0 added, 1 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	_, after, _ := e.rdmaform("state", "show", "endpoint.ok")
	qp := regexp.MustCompile(`qp_num\s+= \d+`)
	if qp.FindString(before) == "" || qp.FindString(before) != qp.FindString(after) {
		t.Errorf("the update changed the connection:\n%s\n%s", before, after)
	}
	e.expect(0, []string{"No changes."}, "plan", "-detailed-exitcode", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// Replacing a listener: its endpoints with a reconnect block reconnect by
// themselves; apply waits for their new connections and records them, so
// the outputs are the new connections' and the next plan has nothing to
// do (the endpoints without one are replaced).
func TestListenerReplacementAwaitsReconnectingEndpoints(t *testing.T) {
	addr, port := os.Getenv("RDMAFORM_TEST_ADDR"), "7623"
	config := func(backlog int) string {
		return fmt.Sprintf(`
listener "l" {
  address = %q
  port    = %s
  backlog = %d
}
endpoint "re" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port
  qp {}
  reconnect {
    min_backoff = "100ms"
    max_backoff = "500ms"
  }
}
endpoint "nore" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
}
output "re_ports" {
  value = endpoint.re[*].local_port
}
`, addr, port, backlog)
	}
	e := newE2E(t, config(16))
	e.expect(0, []string{"Apply complete! Resources: 4 added"}, "apply", "-auto-approve", "-no-color")
	e.write(config(32))
	e.expect(2, []string{
		"# endpoint.re[0] will be updated in-place", "(because the listener it connects to is replaced: it reconnects by itself",
		"~ local_port", "(known after apply)",
		"# endpoint.nore must be replaced",
		"Plan: 2 to add, 2 to change, 2 to destroy.",
	}, "plan", "-detailed-exitcode", "-no-color")
	e.expect(0, []string{"endpoint.re[1]: Modifications complete after", "Apply complete! Resources: 2 added, 2 changed, 2 destroyed."}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-detailed-exitcode", "-no-color")
	_, out, _ := e.rdmaform("output", "-json", "re_ports")
	var ports []int
	if err := json.Unmarshal([]byte(out), &ports); err != nil || len(ports) != 2 {
		t.Fatalf("output re_ports: %q (%v)", out, err)
	}
	_, status, _ := e.rdmaform("status", "-json")
	for _, p := range ports {
		if !strings.Contains(status, fmt.Sprintf(":%d\"", p)) {
			t.Errorf("output port %d is not a live connection's:\n%s", p, status)
		}
	}
	e.expect(0, []string{"Destroy complete! Resources: 4 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// An apply killed (kill -9) while an endpoint with a reconnect block
// connects to a peer that never answers: the agent does not retry a first
// connect for ever (the reconnect block applies once connected), and the
// next plan destroys the failed object and makes it again rather than
// adopting it.
//
// The kill must fall between the agent taking the create (apply prints
// "Creating..." before it sends the request) and the apply acting on the
// failure (it deletes a failed endpoint): the test waits until the agent
// lists the endpoint, and the create timeout gives the kill ample time.
func TestKilledApplyLeavesNoEndlessFirstConnect(t *testing.T) {
	const createTimeout = 10 * time.Second
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	nobody := unanswered(addr)
	e := newE2E(t, fmt.Sprintf(`
endpoint "hang" {
  address = %q
  port    = 7624
  qp {}
  reconnect {
    min_backoff = "100ms"
  }
  timeouts {
    create = %q
  }
}
`, nobody, createTimeout.String()))
	ag := e.dialAgent()
	c, out := e.applyUntil("endpoint.hang: Creating...", 1)
	var o *pb.Object
	waitFor(t, 2*time.Minute, func() bool {
		o = agentObject(t, ag, "endpoint.hang")
		return o != nil
	}, "the agent to list the endpoint the apply creates")
	c.Process.Kill()
	c.Wait()
	if o.Status != pb.Status_CONNECTING && o.Status != pb.Status_CREATING {
		t.Fatalf("the endpoint was %s, not connecting, when the apply was killed:\n%s", o.Status, out.Bytes())
	}
	if agentObject(t, ag, "endpoint.hang") == nil {
		t.Fatalf("the apply dropped the endpoint before it was killed (its create timeout, %v, is too short for this test):\n%s", createTimeout, out.Bytes())
	}
	waitFor(t, createTimeout+2*time.Minute, func() bool {
		o = agentObject(t, ag, "endpoint.hang")
		return o != nil && o.Status != pb.Status_CREATING && o.Status != pb.Status_CONNECTING
	}, "the agent to give up the endpoint's first connect")
	if o.Status != pb.Status_ERROR {
		t.Fatalf("the endpoint's first connect ended %s, not ERROR (last event %q)", o.Status, o.LastEvent)
	}
	time.Sleep(time.Second) // and it stays so
	if o := agentObject(t, ag, "endpoint.hang"); o == nil || o.Status != pb.Status_ERROR || o.Reconnects != 0 {
		t.Fatalf("the agent retries a first connect: %v", o)
	}
	if _, s, _ := e.rdmaform("status"); strings.Contains(s, "reconnecting") || strings.Contains(s, "connecting") {
		t.Fatalf("the agent retries a first connect:\n%s", s)
	}
	plan := e.expect(2, []string{"# endpoint.hang must be replaced", "the agent reports it failed (error: rdma_connect", "-/+ endpoint \"hang\" {", "Plan: 1 to add, 0 to change, 1 to destroy."}, "plan", "-detailed-exitcode", "-no-color")
	if strings.Contains(plan, "imported") {
		t.Fatalf("the failed object is adopted:\n%s", plan)
	}
}

// dialAgent connects to the test's agent, for a test to look at its objects
// directly (a list in process takes milliseconds, a status command far
// longer under load).
func (e *e2e) dialAgent() *client.Client {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, e.socket)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// agentObject is the agent's object at address, or nil when it has none.
func agentObject(t *testing.T, c *client.Client, address string) *pb.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.List(ctx, &pb.ListRequest{Filter: &pb.Filter{Prefixes: []string{address}}})
	if err != nil {
		t.Fatalf("listing the agent's objects: %v", err)
	}
	for _, o := range r.Objects {
		if o.Address == address {
			return o
		}
	}
	return nil
}

// applyUntil starts "rdmaform apply -auto-approve" in its own process and
// returns once its output holds line n times (the output keeps growing).
func (e *e2e) applyUntil(line string, n int) (*exec.Cmd, *lockedBuffer) {
	e.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		e.t.Fatal(err)
	}
	c := exec.Command(exe, "-chdir="+e.dir, "apply", "-auto-approve", "-no-color")
	c.Env = append(os.Environ(), asCLIEnv+"=1")
	out := &lockedBuffer{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(string(out.Bytes()), line) < n {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			e.t.Fatalf("apply did not print %q %d times in 2 minutes:\n%s", line, n, out.Bytes())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return c, out
}

// unanswered is an address on addr's subnet where no host answers: a
// connect there waits for ever.
func unanswered(addr string) string {
	return addr[:strings.LastIndex(addr, ".")] + ".99"
}

// An apply killed while an endpoint connects to a peer that never
// answers, then an apply at once, while the agent still connects it: the
// import of what the killed apply asked for waits for the endpoint, and
// does not adopt it when it fails (the agent drops it); the next plan
// makes it.
func TestImportOfAStillConnectingEndpointWaitsForIt(t *testing.T) {
	e := newE2E(t, fmt.Sprintf(`
endpoint "hang" {
  address = %q
  port    = 7625
  qp {}
  # Long enough that the endpoint still connects when the second apply
  # refreshes, however loaded the host (4 s ran out before it did).
  timeouts {
    create = "40s"
  }
}
`, unanswered(os.Getenv("RDMAFORM_TEST_ADDR"))))
	c, _ := e.applyUntil("endpoint.hang: Creating...", 1)
	c.Process.Kill()
	c.Wait()
	start := time.Now()
	e.expect(1, []string{"endpoint.hang will be imported", "it was still connecting, and failed", "ETIMEDOUT"}, "apply", "-auto-approve", "-no-color")
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("the import did not wait for the endpoint (%v)", took)
	}
	e.expect(2, []string{"# endpoint.hang will be created"}, "plan", "-detailed-exitcode", "-no-color")
}
