package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The password of etcd's root user in these tests, and a wrong one: both
// distinctive, so that a test can tell that no output shows them.
const (
	etcdRootPassword  = "c0rrect-h0rse-s3cret"
	etcdWrongPassword = "wr0ng-battery-s3cret"
)

// startAuthEtcd starts a real etcd with authentication enabled, as
// `etcdctl user add root; etcdctl auth enable` leaves it: only root, with
// etcdRootPassword, may read or write.
func startAuthEtcd(t *testing.T) string {
	t.Helper()
	ep := etcdtest.Start(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.UserAdd(ctx, "root", etcdRootPassword); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserGrantRole(ctx, "root", "root"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AuthEnable(ctx); err != nil {
		t.Fatal(err)
	}
	// Without credentials, etcd now refuses.
	if _, err := c.Get(ctx, "x"); err == nil {
		t.Fatal("etcd answered a client without credentials after auth enable")
	}
	return ep
}

// noSecrets fails the test if any of outs shows a password.
func noSecrets(t *testing.T, what string, outs ...string) {
	t.Helper()
	for _, o := range outs {
		for _, pw := range []string{etcdRootPassword, etcdWrongPassword} {
			if strings.Contains(o, pw) {
				t.Errorf("%s shows a password:\n%s", what, o)
			}
		}
	}
}

// clearEtcdEnv makes the test independent of the environment's
// ETCDV3_USERNAME and ETCDV3_PASSWORD.
func clearEtcdEnv(t *testing.T) {
	t.Setenv("ETCDV3_USERNAME", "")
	t.Setenv("ETCDV3_PASSWORD", "")
}

// Credentials in the backend block: init, apply and state commands work
// against an etcd with authentication enabled; a wrong password fails
// with etcd's authentication failure and the endpoint, not a gRPC status,
// and no output shows the password.
func TestEtcdAuthCredentialsInBlock(t *testing.T) {
	clearEtcdEnv(t)
	ep := startAuthEtcd(t)
	meta := withFabric(t, newMemFabric())
	block := func(pw string) string {
		return "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\"" + ep + "\"]\n    prefix    = \"/auth-block\"\n" +
			"    username  = \"root\"\n    password  = \"" + pw + "\"\n  }\n}\n" + planTestConfig
	}
	dir := planDir(t, block(etcdRootPassword))
	code, out, errs := meta.cmd(t, dir, "", "init")
	if code != 0 || !strings.Contains(out, `user "root"`) {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "init", out, errs)
	noSecrets(t, "init", out, errs)
	if rec, _ := os.ReadFile(filepath.Join(dir, ".rdmaform", "backend.json")); strings.Contains(string(rec), etcdRootPassword) || !strings.Contains(string(rec), `"password_set": true`) {
		t.Errorf("backend.json:\n%s", rec)
	}
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 4 added") {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	// The password goes over plain http: the command warns of it.
	if !strings.Contains(errs, "Warning: Password sent without TLS") || !strings.Contains(errs, `user "root" is sent unencrypted to http://`) {
		t.Errorf("apply with a password over http does not warn of it:\n%s", errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "endpoint.client[1]") {
		t.Fatalf("state list: %d\n%s%s", code, out, errs)
	}

	// Another password in the block is a changed backend, named without
	// its values.
	writeConfig(t, dir, block(etcdWrongPassword))
	code, out, errs = meta.cmd(t, dir, "", "state", "list")
	if code != 1 || !strings.Contains(errs, "Backend initialization required") || !strings.Contains(errs, "(changed: password)") {
		t.Errorf("state list after the password changed: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "state list after the password changed", out, errs)
	noSecrets(t, "state list after the password changed", out, errs)
	code, out, errs = meta.cmd(t, dir, "", "init", "-reconfigure")
	if code != 1 || !strings.Contains(errs, `etcd at `+ep+` refused the credentials of user "root": authentication failed`) || strings.Contains(errs, "rpc error") {
		t.Errorf("init with a wrong password: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "init with a wrong password", out, errs)
	noSecrets(t, "init with a wrong password", out, errs)
}

// Partial configuration: an empty backend block completed by init's
// -backend-config (a file and key=value options); later commands use the
// values init recorded, the password kept out of backend.json.
func TestEtcdAuthBackendConfig(t *testing.T) {
	clearEtcdEnv(t)
	ep := startAuthEtcd(t)
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {}\n}\n"+planTestConfig)
	file := filepath.Join(t.TempDir(), "etcd.hcl")
	os.WriteFile(file, []byte("endpoints = [\""+ep+"\"]\nprefix    = \"/auth-partial\"\nusername  = \"root\"\n"), 0o600)

	code, out, errs := meta.cmd(t, dir, "", "init", "-backend-config="+file, "-backend-config=password="+etcdRootPassword)
	if code != 0 || !strings.Contains(out, `Using the etcd (`+ep+`, prefix "/auth-partial", user "root") backend`) {
		t.Fatalf("init -backend-config: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "init", out, errs)
	noSecrets(t, "init", out, errs)
	rec, _ := os.ReadFile(filepath.Join(dir, ".rdmaform", "backend.json"))
	if strings.Contains(string(rec), etcdRootPassword) || !strings.Contains(string(rec), `"backend_config_secrets": [`) {
		t.Errorf("backend.json:\n%s", rec)
	}
	secrets := filepath.Join(dir, ".rdmaform", "backend-secrets.json")
	if fi, err := os.Stat(secrets); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backend-secrets.json: %v %v", fi, err)
	}

	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 4 added") {
		t.Fatalf("apply with the recorded -backend-config: %d\n%s%s", code, out, errs)
	}
	noSecrets(t, "apply", out, errs)
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Fatalf("state list: %d\n%s%s", code, out, errs)
	}
	// As Terraform's: init again without -backend-config keeps the values.
	if code, out, errs := meta.cmd(t, dir, "", "init"); code != 0 {
		t.Fatalf("init again: %d\n%s%s", code, out, errs)
	}

	// Another password given to init (say, changed in etcd) leaves the
	// state where it is: init needs neither -migrate-state nor
	// -reconfigure for it, tries it, and a wrong one fails on etcd's
	// refusal, as with -reconfigure.
	code, out, errs = meta.cmd(t, dir, "", "init", "-backend-config="+file, "-backend-config=password="+etcdWrongPassword)
	if code != 1 || strings.Contains(errs, "Backend configuration changed") || !strings.Contains(errs, `etcd at `+ep+` refused the credentials of user "root"`) {
		t.Errorf("init with another password: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "init with another password", out, errs)
	noSecrets(t, "init with another password", out, errs)
	code, out, errs = meta.cmd(t, dir, "", "init", "-reconfigure", "-backend-config="+file, "-backend-config=password="+etcdWrongPassword)
	if code != 1 || !strings.Contains(errs, `etcd at `+ep+` refused the credentials of user "root"`) || strings.Contains(errs, "rpc error") {
		t.Errorf("init -reconfigure with a wrong password: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "init -reconfigure with a wrong password", out, errs)
	noSecrets(t, "init -reconfigure with a wrong password", out, errs)
	// The refused init recorded nothing: the state is still reachable.
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Errorf("state list after a refused init: %d\n%s%s", code, out, errs)
	}
	// A change that leaves the state where it is has nothing to migrate.
	code, out, errs = meta.cmd(t, dir, "", "init", "-migrate-state", "-backend-config="+file, "-backend-config=password="+etcdRootPassword, "-backend-config=dial_timeout=7s")
	if code != 0 || !strings.Contains(out, "The state stays where it is (changed: dial_timeout); nothing to migrate.") {
		t.Errorf("init -migrate-state with another dial_timeout: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Errorf("state list after the dial_timeout changed: %d\n%s%s", code, out, errs)
	}

	// The password changed in etcd: commands are refused until init is
	// given the new one, which it takes without -reconfigure.
	const newPassword = "n3w-staple-s3cret"
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(), Username: "root", Password: etcdRootPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.UserChangePassword(context.Background(), "root", newPassword); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 1 || !strings.Contains(errs, `refused the credentials of user "root"`) || !strings.Contains(errs, "If the password changed in etcd") {
		t.Errorf("state list with the old password: %d\n%s%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "init", "-backend-config="+file, "-backend-config=password="+newPassword, "-backend-config=dial_timeout=7s")
	if code != 0 || !strings.Contains(out, "The state stays where it is (changed: password)") || strings.Contains(out+errs, newPassword) {
		t.Errorf("init with the new password: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Errorf("state list with the new password: %d\n%s%s", code, out, errs)
	}
}

// Credentials from ETCDV3_USERNAME and ETCDV3_PASSWORD, as Terraform's
// etcdv3 backend reads them: nothing is recorded of them, and each
// command reads them afresh; without them etcd's refusal is explained.
func TestEtcdAuthCredentialsFromEnvironment(t *testing.T) {
	clearEtcdEnv(t)
	ep := startAuthEtcd(t)
	dir := stateDir(t, testState)
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix    = \"/auth-env\"\n  }\n}\n")

	code, out, errs := stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 1 || !strings.Contains(errs, "etcd at "+ep+" has authentication enabled and no credentials were given") || strings.Contains(errs, "rpc error") || strings.Contains(errs, "-lock=false") || !strings.Contains(errs, "Failed to open the state backend") {
		t.Errorf("init without credentials: %d\n%s%s", code, out, errs)
	}

	t.Setenv("ETCDV3_USERNAME", "root")
	t.Setenv("ETCDV3_PASSWORD", etcdRootPassword)
	code, out, errs = stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 0 || !strings.Contains(out, "Successfully migrated") {
		t.Fatalf("init with credentials in the environment: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform", "backend-secrets.json")); !os.IsNotExist(err) {
		t.Errorf("a password from the environment was recorded: %v", err)
	}
	os.Remove(filepath.Join(dir, "rdmaform.rdmastate"))
	if code, out, errs := stateCmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "endpoint.client[10]") {
		t.Fatalf("state list: %d\n%s%s", code, out, errs)
	}

	t.Setenv("ETCDV3_PASSWORD", etcdWrongPassword)
	code, out, errs = stateCmd(t, dir, "", "state", "list")
	if code != 1 || !strings.Contains(errs, `etcd at `+ep+` refused the credentials of user "root"`) || strings.Contains(errs, "rpc error") {
		t.Errorf("state list with a wrong password: %d\n%s%s", code, out, errs)
	}
	t.Logf("%s:\n%s%s", "state list with a wrong password", out, errs)
	noSecrets(t, "state list with a wrong password", out, errs)

	// A username alone is a configuration error.
	t.Setenv("ETCDV3_PASSWORD", "")
	code, out, errs = stateCmd(t, dir, "", "state", "list")
	if code != 1 || !strings.Contains(errs, "Incomplete etcd credentials") || !strings.Contains(errs, "main.rdma.hcl:2:3") {
		t.Errorf("state list with a username alone: %d\n%s%s", code, out, errs)
	}
}
