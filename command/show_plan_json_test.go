package command

import (
	"encoding/json"
	"testing"
	"time"
)

// show -json of a saved plan has Terraform's timestamp (when the plan was
// made), relevant_attributes (what the changes reference) and
// terraform_version (rdmaform's).
func TestShowPlanJSONTimestampAndRelevantAttributes(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	start := time.Now().Add(-time.Second)
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out=p.plan", "-no-color"); code != 0 {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "show", "-json", "p.plan")
	var doc struct {
		TerraformVersion   string            `json:"terraform_version"`
		Timestamp          string            `json:"timestamp"`
		RelevantAttributes []json.RawMessage `json:"relevant_attributes"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("show -json: %d\n%s\n%s", code, out, errs)
	}
	if ts, err := time.Parse(time.RFC3339, doc.Timestamp); err != nil || ts.Before(start) || ts.After(time.Now()) || ts.Location() != time.UTC {
		t.Errorf("timestamp %q (%v), want the plan's time in UTC", doc.Timestamp, err)
	}
	if doc.TerraformVersion != Version {
		t.Errorf("terraform_version %q, want %q", doc.TerraformVersion, Version)
	}
	found := false
	for _, ra := range doc.RelevantAttributes {
		found = found || string(ra) == `{"resource":"listener.loop","attribute":["port"]}`
	}
	if !found {
		t.Errorf("relevant_attributes without listener.loop's port: %s", doc.RelevantAttributes)
	}
}
