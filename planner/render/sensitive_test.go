package render

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

// sensitiveConfig is planner's test configuration with sensitive values.
var sensitiveConfig = mustReadFile("../testdata/sensitive.rdma.hcl")

func mustReadFile(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// noSecrets fails if out shows a sensitive value.
func noSecrets(t *testing.T, what, out string) {
	t.Helper()
	for _, secret := range []string{"tok-4", `"x"`} {
		if strings.Contains(out, secret) {
			t.Errorf("%s shows %s:\n%s", what, secret, out)
		}
	}
}

// Attributes whose value is sensitive show as (sensitive value) when
// created, updated (the only change, or forcing replacement) and
// destroyed, including in a saved plan.
func TestHumanSensitive(t *testing.T) {
	p := plan(t, load(t, sensitiveConfig), nil, planner.Options{})
	out := human(p)
	noSecrets(t, "create", out)
	for _, want := range []string{
		"          + private_data    = (sensitive value)\n",
		`      + address       = "10.77.0.1"` + "\n", // others still show
	} {
		if !strings.Contains(out, want) {
			t.Errorf("create lacks %q:\n%s", want, out)
		}
	}
	golden(t, "sensitive_create.txt", out)

	st := applied(t, p)
	// Only sensitive values change, each forcing replacement.
	src := strings.Replace(sensitiveConfig, `"tok-42"`, `"tok-43"`, 1)
	src = strings.Replace(src, `sensitive("x")`, `sensitive("xy")`, 1)
	p = plan(t, load(t, src), st, planner.Options{})
	out = human(p)
	noSecrets(t, "update", out)
	for _, want := range []string{
		"  # listener.l must be replaced\n",
		"  # endpoint.e must be replaced\n",
		"          ~ private_data = (sensitive value) # forces replacement\n",
		"Plan: 2 to add, 0 to change, 2 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("update lacks %q:\n%s", want, out)
		}
	}
	golden(t, "sensitive_update.txt", out)

	// Made nonsensitive: the prior value, which was, stays hidden.
	plain := strings.Replace(src, "private_data = local.pd", "private_data = nonsensitive(local.pd)", 1)
	out = human(plan(t, load(t, plain), st, planner.Options{}))
	noSecrets(t, "update to a nonsensitive value", out)
	if !strings.Contains(out, "          ~ private_data = (sensitive value) # forces replacement\n") {
		t.Errorf("update to a nonsensitive value:\n%s", out)
	}

	// Destroy, from the state's record alone.
	p = plan(t, nil, st, planner.Options{Destroy: true})
	out = human(p)
	noSecrets(t, "destroy", out)
	if !strings.Contains(out, "          - private_data    = (sensitive value) -> null\n") {
		t.Errorf("destroy:\n%s", out)
	}
	golden(t, "sensitive_destroy.txt", out)

	// A saved plan shows the same.
	p = plan(t, load(t, src), st, planner.Options{})
	var b bytes.Buffer
	if err := planner.WritePlanFile(&b, &planner.SavedPlan{Plan: p}); err != nil {
		t.Fatal(err)
	}
	sp, err := planner.ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := human(sp.Plan); got != human(p) {
		t.Errorf("the saved plan shows\n%s\nrather than\n%s", got, human(p))
	}
}

// The JSON plan keeps the values, as Terraform's does, and marks them in
// before_sensitive and after_sensitive, mirroring the objects.
func TestJSONSensitive(t *testing.T) {
	st := applied(t, plan(t, load(t, sensitiveConfig), nil, planner.Options{}))
	src := strings.Replace(sensitiveConfig, `"tok-42"`, `"tok-43"`, 1)
	var b bytes.Buffer
	if err := JSON(&b, plan(t, load(t, src), st, planner.Options{}), nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ResourceChanges []struct {
			Address string
			Change  struct {
				Before          map[string]any
				After           map[string]any
				BeforeSensitive any `json:"before_sensitive"`
				AfterSensitive  any `json:"after_sensitive"`
			}
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"listener.l": `{"accept":{"private_data":true}}`,
		"endpoint.e": `{"connect":{"private_data":true}}`,
	}
	for _, rc := range doc.ResourceChanges {
		for what, v := range map[string]any{"before_sensitive": rc.Change.BeforeSensitive, "after_sensitive": rc.Change.AfterSensitive} {
			got, _ := json.Marshal(v)
			if string(got) != want[rc.Address] {
				t.Errorf("%s %s = %s, want %s", rc.Address, what, got, want[rc.Address])
			}
		}
	}
	l := doc.ResourceChanges[0]
	if l.Address != "listener.l" || l.Change.After["accept"].(map[string]any)["private_data"] != "peer=tok-43" ||
		l.Change.Before["accept"].(map[string]any)["private_data"] != "peer=tok-42" {
		t.Errorf("the values are not in before and after: %+v", l.Change)
	}

	// A create: before null, so false.
	b.Reset()
	if err := JSON(&b, plan(t, load(t, sensitiveConfig), nil, planner.Options{}), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"before_sensitive":false,"after_sensitive":{"accept":{"private_data":true}}`) {
		t.Errorf("create:\n%s", b.String())
	}
}
