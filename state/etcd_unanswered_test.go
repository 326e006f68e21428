package state

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Once etcd stopped answering, what a failed command still does (save the
// state, release the lock) gives up within about a second each rather
// than each request's whole timeout and the lease's revocation (about 30
// s here, with the default 5 s requests and 15 s lease), and the errors
// say etcd did not answer. Once it answers again, so does the manager.
func TestEtcdThatStopsAnsweringFailsFast(t *testing.T) {
	srv := etcdtest.StartServer(t)
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{srv.URL}, Prefix: "hang/"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	id, err := e.Lock(&LockInfo{Operation: "OperationTypeApply"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RefreshState(); err != nil {
		t.Fatal(err)
	}
	e.WriteState(New())

	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer srv.Resume()
	err = e.RefreshState()
	if err == nil || !strings.Contains(err.Error(), "etcd did not answer in time") {
		t.Fatalf("reading from a paused etcd: %v", err)
	}

	start := time.Now()
	if err := e.PersistState(); err == nil || !strings.Contains(err.Error(), "etcd did not answer in time") {
		t.Errorf("saving to a paused etcd: %v", err)
	}
	uerr := e.Unlock(id)
	if uerr == nil || !strings.Contains(uerr.Error(), "etcd did not answer in time") {
		t.Errorf("unlocking on a paused etcd: %v", uerr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("saving and unlocking took %v after etcd stopped answering, each request its whole timeout", took.Round(time.Millisecond))
	}

	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, func() bool { return e.RefreshState() == nil })
	if got := e.wait(time.Minute); got != time.Minute {
		t.Errorf("once etcd answers again, requests still wait %v", got)
	}
}

func waitUntil(t *testing.T, limit time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v", limit)
		}
	}
}

// An etcd killed (its connections refused) is said in words, not as
// gRPC's status ("rpc error: code = Unavailable desc = ...").
func TestEtcdUnreachableIsSaidInWords(t *testing.T) {
	err := (&Etcd{}).notAnswering(status.Error(codes.Unavailable, "error reading from server: EOF"))
	if got := err.Error(); got != "etcd is unreachable (stopped, or the connection to it lost: error reading from server: EOF)" {
		t.Errorf("said %q", got)
	}
	if status.Code(errors.Unwrap(err)) != codes.Unavailable {
		t.Error("the gRPC status is not kept underneath")
	}
	if other := errors.New("x"); (&Etcd{}).notAnswering(other) != other {
		t.Error("another error is changed")
	}

	srv := etcdtest.StartServer(t)
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{srv.URL}, Prefix: "killed/"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.RefreshState(); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	err = e.RefreshState()
	if err == nil || strings.Contains(err.Error(), "rpc error") || !strings.Contains(err.Error(), "etcd ") {
		t.Errorf("reading from a killed etcd: %v", err)
	}
}
