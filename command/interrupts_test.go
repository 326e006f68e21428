package command

import (
	"context"
	"io"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// stuckFabric is a memFabric whose endpoint creates (or deletes) do not
// complete until never is closed, as an endpoint whose peer does not
// answer waits for its establish timeout.
type stuckFabric struct {
	*memFabric
	never   chan struct{}
	deletes bool // the deletes are stuck, not the creates
}

func (f stuckFabric) Create(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (state.Facts, error) {
	if h.Addr.Kind == addrs.Endpoint && !f.deletes {
		<-f.never
	}
	return f.memFabric.Create(ctx, h, spec, token)
}

func (f stuckFabric) Delete(ctx context.Context, h apply.Handle, token string) error {
	if h.Addr.Kind == addrs.Endpoint && f.deletes {
		<-f.never
	}
	return f.memFabric.Delete(ctx, h, token)
}

// A second interrupt exits at once, as Terraform's does, rather than wait
// for what is in flight; the first says so.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	f := stuckFabric{memFabric: newMemFabric(), never: make(chan struct{})}
	meta := Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return &fabricConn{Refresher: f.memFabric, Fabric: f}, nil
	}}
	exited := make(chan int, 1)
	meta.Exit = func(code int) { exited <- code; runtime.Goexit() } // as os.Exit, never returns
	dir := planDir(t, planTestConfig)
	var out lockedBuffer
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		run([]string{"-chdir=" + dir, "apply", "-auto-approve", "-no-color"}, meta.streams(strings.NewReader(""), &out, &out))
	}()
	// The process goes on (exitNow does not end it here): let the apply
	// finish before the next test changes directory under it.
	t.Cleanup(func() {
		close(f.never)
		select {
		case <-returned:
		case <-time.After(10 * time.Second):
			t.Error("apply did not return 10 s after its creates completed")
		}
	})
	waitFor := func(marker string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(out.Bytes()), marker); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q after 10 s:\n%s", marker, out.Bytes())
			}
		}
	}
	waitFor("endpoint.client[0]: Creating...")
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitFor("Interrupt again to exit at once.")
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if code != 1 || !strings.Contains(string(out.Bytes()), "Two interrupts received. Exiting immediately.") {
			t.Fatalf("exit %d\n%s", code, out.Bytes())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after the second interrupt:\n%s", out.Bytes())
	}
}

// An interrupted destroy says to run destroy again to finish; apply would
// make everything again.
func TestInterruptedDestroySaysDestroyAgain(t *testing.T) {
	f := stuckFabric{memFabric: newMemFabric(), never: make(chan struct{}), deletes: true}
	meta := Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return &fabricConn{Refresher: f.memFabric, Fabric: f}, nil
	}}
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	var out lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-chdir=" + dir, "destroy", "-auto-approve", "-no-color"}, meta.streams(strings.NewReader(""), &out, &out))
	}()
	waitForOutput(t, &out, "endpoint.client[0]: Destroying...")
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitForOutput(t, &out, "Interrupt received")
	close(f.never)
	var code int
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("destroy still running 10 s after its deletes completed:\n%s", out.Bytes())
	}
	if code != 1 || !strings.Contains(string(out.Bytes()), `Run "rdmaform destroy" again to finish.`) {
		t.Fatalf("destroy: %d\n%s", code, out.Bytes())
	}
}

// waitForOutput waits until out holds marker.
func waitForOutput(t *testing.T, out *lockedBuffer, marker string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(out.Bytes()), marker); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 10 s:\n%s", marker, out.Bytes())
		}
	}
}
