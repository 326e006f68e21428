package command

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
)

// plantimestamp() is the plan's time, as Terraform 1.11's: a saved plan
// records the time its configuration was evaluated with, and its apply
// evaluates the configuration with that time again, not the apply's.
func TestPlanTimestampOfASavedPlan(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	var loaded []time.Time
	meta.configHook = func(cfg *config.Config) { loaded = append(loaded, cfg.PlanTimestamp) }
	dir := planDir(t, planTestConfig+`
output "at" {
  value = plantimestamp()
}
`)
	planFile := filepath.Join(dir, "p.plan")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+planFile); code != 0 {
		t.Fatalf("plan -out: %d\n%s\n%s", code, out, errs)
	}
	data, err := os.ReadFile(planFile)
	if err != nil || len(loaded) != 1 {
		t.Fatalf("%v, loaded %v", err, loaded)
	}
	created := regexp.MustCompile(`"created_at": ?"([^"]*)"`)
	if m := created.FindSubmatch(data); m == nil || string(m[1]) != loaded[0].Format(time.RFC3339) {
		t.Fatalf("the plan file records %q, want plantimestamp()'s %s", m, loaded[0].Format(time.RFC3339))
	}
	// A plan made long ago: its apply still evaluates with its time.
	const then = "2018-05-13T07:44:12Z"
	if err := os.WriteFile(planFile, created.ReplaceAll(data, []byte(`"created_at":"`+then+`"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", planFile); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if len(loaded) != 2 || loaded[1].Format(time.RFC3339) != then {
		t.Fatalf("apply of the plan evaluated plantimestamp() as %v, want the plan's %s", loaded, then)
	}
	// The output is what the plan showed.
	code, out, errs := meta.cmd(t, dir, "", "output", "-raw", "at")
	if want := loaded[0].Format(time.RFC3339); code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("output at after apply: %d %q %s, want the planned %s", code, out, errs, want)
	}
}
