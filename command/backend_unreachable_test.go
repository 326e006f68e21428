package command

import (
	"net"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// An etcd nothing listens for is said to be unreachable, naming its
// endpoints and what to check, under a heading of its own: it was headed
// "Error acquiring the state lock", as if someone held the lock.
// (Terraform says its backend's error under that heading; rdmaform's words
// say which it is.)
func TestUnreachableEtcdIsSaidSo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n  }\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-no-color")
	checkUnreachable(t, "init", ep, code, out, errs)
}

// Once etcd goes away, the commands reading or locking the state say so too.
func TestEtcdGoneAwayIsSaidSo(t *testing.T) {
	srv := etcdtest.StartServer(t)
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+srv.URL+"\"]\n    prefix = \"/gone\"\n  }\n}\n")
	if code, out, errs := stateCmd(t, dir, "", "init", "-no-color"); code != 0 {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"state", "list"}, {"taint", "-allow-missing", "endpoint.client[0]"}} {
		code, out, errs := stateCmd(t, dir, "", args...)
		checkUnreachable(t, strings.Join(args, " "), srv.URL, code, out, errs)
	}
}

func checkUnreachable(t *testing.T, what, ep string, code int, out, errs string) {
	t.Helper()
	if code != 1 || !strings.Contains(errs, "Error: etcd is unreachable\n") || !strings.Contains(errs, "Check that etcd runs at "+ep+"\n") ||
		strings.Contains(errs, "state lock") || strings.Contains(errs, "rpc error:") || strings.Contains(errs, "code = ") || strings.Contains(errs, "desc = ") {
		t.Errorf("%s: exit code %d\n%s%s", what, code, out, errs)
	}
}
