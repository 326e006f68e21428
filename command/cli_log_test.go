package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRedactArgsKeepsValuesOut(t *testing.T) {
	got := redactArgs([]string{"-var=token=s3cret", "-var", "pd=abc", "--backend-config=password=pw", "-backend-config", "etcd.hcl",
		"-backend-config", "username=root", "-var-file=prod.tfvars", "-auto-approve", "-target=endpoint.a", "-var"})
	want := []string{"-var=token=(redacted)", "-var", "pd=(redacted)", "--backend-config=password=(redacted)", "-backend-config", "etcd.hcl",
		"-backend-config", "username=(redacted)", "-var-file=prod.tfvars", "-auto-approve", "-target=endpoint.a", "-var"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("redactArgs:\n got %q\nwant %q", got, want)
	}
}

// The secrets of a run at RDMAFORM_LOG=trace: a sensitive variable's
// value (an accept's private data) and an etcd password, given on the
// command line and in the backend block. The log, in its file, tells
// what ran and holds none of them.
func TestCLILogHoldsNoSecrets(t *testing.T) {
	clearEtcdEnv(t)
	ep := startAuthEtcd(t)
	const privateData = "pd-s3cret-b1ue-kestrel"
	logFile := filepath.Join(t.TempDir(), "rdmaform.log")
	t.Setenv(logEnv, "trace")
	t.Setenv(logPathEnv, logFile)
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix    = \"/log\"\n    username  = \"root\"\n  }\n}\n"+
		strings.Replace(planTestConfig, "  pd      = protection_domain.rxe.id\n}", "  pd      = protection_domain.rxe.id\n  accept { private_data = var.pd_secret }\n}", 1)+
		"variable \"pd_secret\" {\n  type      = string\n  sensitive = true\n}\n")
	if code, out, errs := meta.cmd(t, dir, "", "init", "-backend-config=password="+etcdRootPassword); code != 0 {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color", "-var", "pd_secret="+privateData)
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 4 added") {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	if strings.Contains(errs, "msg=") {
		t.Errorf("with %s set, the log went to stderr too:\n%s", logPathEnv, errs)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{"level=INFO msg=rdmaform version=", "msg=command name=init", "-backend-config=password=(redacted)",
		"msg=command name=apply", "pd_secret=(redacted)", "level=DEBUG msg=\"connected to the agent\"", "level=DEBUG msg=exit code=0"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %q:\n%s", want, log)
		}
	}
	for _, secret := range []string{privateData, etcdRootPassword} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds the secret %q:\n%s", secret, log)
		}
	}
}

// RDMAFORM_LOG=json logs JSON lines at trace level to stderr, never on
// standard output: -json output stays the machine-readable UI alone.
func TestCLILogJSONStaysOffStdout(t *testing.T) {
	t.Setenv(logEnv, "json")
	t.Setenv(logPathEnv, "")
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-json")
	if code != 0 {
		t.Fatalf("apply -json: %d\n%s%s", code, out, errs)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["@message"] == nil || m["msg"] != nil {
			t.Errorf("a stdout line that is not the UI's: %s", l)
		}
	}
	var levels []string
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] != nil {
			levels = append(levels, m["level"].(string)+" "+m["msg"].(string))
		}
	}
	if strings.Join(levels, ", ") == "" || !strings.Contains(strings.Join(levels, ","), "INFO command") || !strings.Contains(strings.Join(levels, ","), "DEBUG exit") {
		t.Errorf("stderr's JSON log lines: %q\n%s", levels, errs)
	}
}

// An RDMAFORM_LOG rdmaform does not know logs at trace, and says so, as
// Terraform does with TF_LOG.
func TestCLILogUnknownLevelIsTrace(t *testing.T) {
	t.Setenv(logEnv, "loud")
	t.Setenv(logPathEnv, "")
	t.Chdir(".") // -chdir leaves it
	code, _, errs := stateCmd(t, t.TempDir(), "", "version")
	if code != 0 || !strings.Contains(errs, `level=WARN msg="unknown RDMAFORM_LOG level: logging at trace; use trace, debug, info, warn, error or json" value=loud`) ||
		!strings.Contains(errs, "level=DEBUG msg=exit") {
		t.Errorf("version with RDMAFORM_LOG=loud: %d\n%s", code, errs)
	}
}
