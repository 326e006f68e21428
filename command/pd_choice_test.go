package command

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func pdChoiceConfig(cPD string) string {
	return `
protection_domain "one" {
  device = "rxe0"
}

protection_domain "two" {
  device = "rxe0"
}

locals {
  pds = { gold = protection_domain.one.id, bronze = protection_domain.two.id }
}

listener "l" {
  address = "10.77.0.1"
  port    = 7611
}

endpoint "t" {
  for_each = toset(["gold", "bronze"])
  address  = listener.l.address
  port     = listener.l.port
  pd       = local.pds[each.key]
}

endpoint "c" {
  address = listener.l.address
  port    = listener.l.port
  pd      = ` + cPD + `
}
`
}

// statePD is the pd the state records of each endpoint.
func statePD(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := workspaceState(t, filepath.Join(dir, "rdmaform.rdmastate"))
	out := map[string]string{}
	for addr, o := range st.Objects {
		if !strings.HasPrefix(addr, "endpoint.") {
			continue
		}
		var attrs struct {
			PD string `json:"pd"`
		}
		if err := json.Unmarshal(o.Attributes, &attrs); err != nil {
			t.Fatal(err)
		}
		out[addr] = attrs.PD
	}
	return out
}

// A pd chosen per instance among protection domains (a map of them in
// locals, a conditional) is applied with the right one, also when they are
// made in the same apply; moving an object to another protection domain
// that exists plans its replacement (pd forces it), as Terraform plans a
// change of a reference to an object that exists.
func TestPDChosenPerInstanceAndMovedBetweenProtectionDomains(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, pdChoiceConfig(`protection_domain.one.id`))
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	want := map[string]string{`endpoint.t["gold"]`: "protection_domain.one", `endpoint.t["bronze"]`: "protection_domain.two", "endpoint.c": "protection_domain.one"}
	if got := statePD(t, dir); len(got) != 3 || got[`endpoint.t["gold"]`] != want[`endpoint.t["gold"]`] || got[`endpoint.t["bronze"]`] != want[`endpoint.t["bronze"]`] || got["endpoint.c"] != want["endpoint.c"] {
		t.Fatalf("protection domains applied: %v, want %v", got, want)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("second plan: %d\n%s\n%s", code, out, errs)
	}

	writeConfig(t, dir, pdChoiceConfig(`protection_domain.two.id`))
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("plan after moving endpoint.c: %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{"# endpoint.c must be replaced", `"protection_domain.one" -> "protection_domain.two" # forces replacement`, "Plan: 1 to add, 0 to change, 1 to destroy."} {
		if !strings.Contains(out, w) {
			t.Errorf("plan lacks %q:\n%s", w, out)
		}
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if got := statePD(t, dir)["endpoint.c"]; got != "protection_domain.two" {
		t.Fatalf("endpoint.c's pd after the move: %q", got)
	}

	// A new instance's pd, from a protection domain that exists, is known.
	writeConfig(t, dir, strings.NewReplacer(`["gold", "bronze"]`, `["gold", "bronze", "silver"]`,
		`bronze = protection_domain.two.id`, `bronze = protection_domain.two.id, silver = protection_domain.one.id`).Replace(pdChoiceConfig(`protection_domain.two.id`)))
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 || !strings.Contains(out, `# endpoint.t["silver"] will be created`) || !regexp.MustCompile(`\+ pd +=+ "protection_domain.one"`).MatchString(out) {
		t.Fatalf("plan of a new instance: %d\n%s\n%s", code, out, errs)
	}
}
