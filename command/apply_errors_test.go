package command

import (
	"errors"
	"fmt"
	"github.com/rdmaform/rdmaform/state"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// One failure shared by many objects is reported once with the objects it
// hit; different failures, and a failure shared by two, one by one.
func TestApplyErrorsGroupTheSameFailure(t *testing.T) {
	t.Parallel()
	ep := func(i int) addrs.Instance {
		return addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "e"}, Key: addrs.IntKey(i)}
	}
	var errs []apply.OpError
	for _, i := range []int{14, 3, 12, 11, 10, 9, 8, 7, 6, 5, 4, 13, 15} {
		errs = append(errs, apply.OpError{Addr: ep(i), Op: "create",
			Err: fmt.Errorf("the agent's change stream ended before %s was established: EOF", ep(i))})
	}
	errs = append(errs,
		apply.OpError{Addr: ep(20), Op: "create", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")},
		apply.OpError{Addr: ep(21), Op: "create", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")},
		apply.OpError{Addr: ep(22), Op: "delete", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")})
	var b strings.Builder
	writeApplyErrors(&b, errs, nil)
	want := `
Error: endpoint.e[3]: create failed: the agent's change stream ended before endpoint.e[3] was established: EOF

  The same create failure for 12 more objects: endpoint.e[4], endpoint.e[5], endpoint.e[6], endpoint.e[7], endpoint.e[8], endpoint.e[9], endpoint.e[10], endpoint.e[11], endpoint.e[12], endpoint.e[13] and 2 more

Error: endpoint.e[20]: create failed: rdma_connect: connection refused (ECONNREFUSED)

Error: endpoint.e[21]: create failed: rdma_connect: connection refused (ECONNREFUSED)

Error: endpoint.e[22]: delete failed: rdma_connect: connection refused (ECONNREFUSED)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Ctrl-C at the approval question cancels the apply as "no" does: a
// message, exit 1, the lock released; nothing is made.
func TestInterruptAtTheQuestionCancels(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, planTestConfig)
	stdin, _ := io.Pipe() // never answers
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-chdir=" + dir, "apply", "-no-color"}, meta.streams(stdin, &out, &errb))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(string(out.Bytes()), "Enter a value: ") {
		if time.Now().After(deadline) {
			t.Fatalf("no question after 10 s:\n%s\n%s", string(out.Bytes()), string(errb.Bytes()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(string(out.Bytes()), "Apply cancelled.") || len(f.live) != 0 {
			t.Fatalf("exit %d, live %v\n%s\n%s", code, f.live, string(out.Bytes()), string(errb.Bytes()))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("apply still waiting 10 s after Ctrl-C")
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform.rdmastate.lock.info")); err == nil {
		t.Error("the lock's info file is left behind")
	}
}

// A long list of operations (1,000 endpoints not started) is summed up
// per block; a short one is listed.
func TestObjectListSumsUpLongLists(t *testing.T) {
	t.Parallel()
	short := []string{"endpoint.c[0] (create)", "listener.l (delete)"}
	if got := objectList(short); got != "endpoint.c[0] (create), listener.l (delete)" {
		t.Errorf("short list: %q", got)
	}
	var long []string
	for i := range 998 {
		long = append(long, fmt.Sprintf("endpoint.c[%d] (create)", i))
	}
	long = append(long, `endpoint.m["a b"] (delete)`, `endpoint.m["c d"] (delete)`, "listener.l (create)")
	if got, want := objectList(long), `endpoint.c: 998 instances (create), endpoint.m: 2 instances (delete), listener.l (create)`; got != want {
		t.Errorf("long list:\n got %q\nwant %q", got, want)
	}
	// Past ten blocks, the rest are counted, not named.
	var blocks []string
	for b := range 12 {
		blocks = append(blocks, fmt.Sprintf("endpoint.b%d[0] (create)", b), fmt.Sprintf("endpoint.b%d[1] (create)", b))
	}
	got := objectList(blocks)
	if !strings.HasPrefix(got, "endpoint.b0: 2 instances (create), ") || !strings.Contains(got, ", endpoint.b9: 2 instances (create) and 4 more") ||
		strings.Contains(got, "endpoint.b10") {
		t.Errorf("twelve blocks: %q", got)
	}
}

// The note on the objects a failure left unchanged sums them up as the
// other long lists are, instead of naming each of 150 endpoints.
func TestSkippedObjectsNoteSumsUpLongLists(t *testing.T) {
	f := newMemFabric()
	f.fail["listener.loop"] = fmt.Errorf("rdma_listen: %w (EADDRINUSE)", syscall.EADDRINUSE)
	meta := withFabric(t, f)
	dir := planDir(t, strings.Replace(planTestConfig, "count   = 2", "count   = 150", 1))
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	want := "\nNote: 150 objects were not changed because listener.loop failed: endpoint.client: 150 instances (create)\n"
	if code != 1 || !strings.Contains(errs, want) {
		t.Fatalf("exit %d, stderr lacks %q:\n%s\n%s", code, want, out, errs)
	}
}

// /dev/null is a character device but no terminal: apply refuses to ask.
func TestDevNullIsNoTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if (Meta{In: f}).stdinIsTerminal() {
		t.Error("/dev/null taken for a terminal")
	}
}

// As Terraform's, apply needs approval (a terminal, input allowed) only
// when the plan changes something: with nothing to do it succeeds from a
// pipe and with -input=false.
func TestApplyAsksOnlyWhenSomethingChanges(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color")
	if code != 1 || !strings.Contains(errs, "No terminal to confirm the apply") || !strings.Contains(out, "Plan: 4 to add") {
		t.Fatalf("apply with changes from a pipe: %d\n%s%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-input=false"); code != 1 || !strings.Contains(errs, "No confirmation with -input=false") {
		t.Fatalf("apply -input=false with changes: %d\n%s", code, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply -auto-approve: %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{"apply", "-no-color"}, {"apply", "-input=false", "-no-color"}} {
		if code, out, errs := meta.cmd(t, dir, "", args...); code != 0 || !strings.Contains(out, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.") {
			t.Errorf("%v with nothing to do: %d\n%s%s", args, code, out, errs)
		}
	}
}

// runUntil runs args in the background until out shows marker, then
// sends sig to this process, and returns the exit code.
func runUntil(t *testing.T, m Meta, args []string, stdin io.Reader, marker string, sig syscall.Signal) (int, string) {
	t.Helper()
	var out lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(args, m.streams(stdin, &out, &out)) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(string(out.Bytes()), marker) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 10 s:\n%s", marker, string(out.Bytes()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), sig)
	select {
	case code := <-done:
		return code, string(out.Bytes())
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after %v:\n%s", sig, string(out.Bytes()))
	}
	return 0, ""
}

// A hang-up (the terminal closed) while apply asks for a variable stops
// it as Ctrl-C does: exit 1, nothing made, the lock and its info file
// released.
func TestHangUpAtAVariablePromptReleasesTheLock(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, `
variable "port" {
  type = number
}
listener "l" {
  address = "10.77.0.1"
  port    = var.port
}
`)
	stdin, w := io.Pipe() // never answers
	defer w.Close()
	code, out := runUntil(t, meta, []string{"-chdir=" + dir, "apply", "-no-color"}, stdin, "Enter a value: ", syscall.SIGHUP)
	if code != 1 || !strings.Contains(out, "Interrupt received. Stopping: nothing has been changed.") || len(f.live) != 0 {
		t.Fatalf("exit %d, live %v\n%s", code, f.live, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform.rdmastate.lock.info")); err == nil {
		t.Error("the lock's info file is left behind")
	}
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	id, err := m.Lock(state.NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatalf("the lock is still held: %v", err)
	}
	m.Unlock(id)
}

// SIGTERM while waiting for a lock another apply holds stops the wait.
func TestTerminateWhileWaitingForTheLock(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	holdLock(t, dir)
	start := time.Now()
	code, out := runUntil(t, meta, []string{"-chdir=" + dir, "plan", "-lock-timeout=5m", "-no-color"}, strings.NewReader(""), "Acquiring state lock: it is held by", syscall.SIGTERM)
	if code != 1 || !strings.Contains(out, "Interrupt received") || time.Since(start) > 2*time.Minute {
		t.Fatalf("exit %d after %v\n%s", code, time.Since(start), out)
	}
}
