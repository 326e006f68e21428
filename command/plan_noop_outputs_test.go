package command

import (
	"encoding/json"
	"strings"
	"testing"
)

// Outputs the state has as configured are no-ops: in show -json's
// output_changes and plan -json's outputs message, as Terraform's, but
// never a change: the human plan hides them, and they make no plan
// applyable or -detailed-exitcode 2.
func TestUnchangedOutputsAreNoOps(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+`
output "secret" {
  value     = "s3cret"
  sensitive = true
}
`)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color", "-out=noop.plan")
	if code != 0 || !strings.Contains(out, "No changes.") || strings.Contains(out, "Outputs") {
		t.Fatalf("plan with the outputs unchanged: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "show", "-json", "noop.plan")
	var doc struct {
		Applyable     bool                      `json:"applyable"`
		OutputChanges map[string]map[string]any `json:"output_changes"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("show -json: %d\n%s\n%s", code, out, errs)
	}
	port, secret := doc.OutputChanges["port"], doc.OutputChanges["secret"]
	if doc.Applyable || port == nil || secret == nil {
		t.Fatalf("no-op outputs missing, or the plan applyable:\n%s", out)
	}
	if b, _ := json.Marshal(port); string(b) != `{"actions":["no-op"],"after":7471,"after_sensitive":false,"after_unknown":false,"before":7471,"before_sensitive":false}` {
		t.Errorf("port's no-op: %s", b)
	}
	if b, _ := json.Marshal(secret); string(b) != `{"actions":["no-op"],"after":"s3cret","after_sensitive":true,"after_unknown":false,"before":"s3cret","before_sensitive":true}` {
		t.Errorf("secret's no-op: %s", b)
	}
	code, out, errs = meta.cmd(t, dir, "", "plan", "-json", "-detailed-exitcode")
	outs := ofType(uiLines(t, out), "outputs")
	if code != 0 || len(outs) != 1 {
		t.Fatalf("plan -json: %d\n%s\n%s", code, out, errs)
	}
	if b, _ := json.Marshal(outs[0]["outputs"]); string(b) != `{"port":{"action":"noop","sensitive":false},"secret":{"action":"noop","sensitive":true}}` {
		t.Errorf("plan -json's outputs: %s", b)
	}
}
