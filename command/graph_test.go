package command

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestGraphPrintsTheDependencies(t *testing.T) {
	dir := planDir(t, planTestConfig)
	code, out, errs := stateCmd(t, dir, "", "graph")
	if code != 0 {
		t.Fatalf("graph: %d\n%s", code, errs)
	}
	for _, want := range []string{
		"digraph G {\n",
		`  "endpoint.client" [label="endpoint.client"];`,
		`  "endpoint.client" -> "listener.loop";`,
		`  "endpoint.client" -> "protection_domain.rxe";`,
		`  "listener.loop" -> "protection_domain.rxe";`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("graph lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"protection_domain.rxe" ->`) {
		t.Errorf("the protection domain depends on nothing:\n%s", out)
	}
	if dot, err := exec.LookPath("dot"); err == nil {
		c := exec.Command(dot, "-Tsvg", "-o", os.DevNull)
		c.Stdin = strings.NewReader(out)
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("Graphviz refuses the graph: %v\n%s", err, b)
		}
	}

	os.WriteFile(dir+"/main.rdma.hcl", []byte("endpoint \"e\" {\n  address = listener.none.address\n}\n"), 0o644)
	if code, _, errs := stateCmd(t, dir, "", "graph"); code != 1 || !strings.Contains(errs, "listener") {
		t.Fatalf("graph of a broken configuration: %d\n%s", code, errs)
	}
}

// graph -type is Terraform's: plan-destroy draws destroy's order (each edge
// reversed); an unknown type is refused.
func TestGraphTypes(t *testing.T) {
	dir := planDir(t, planTestConfig)
	code, out, errs := stateCmd(t, dir, "", "graph", "-type=plan-destroy", "-draw-cycles")
	if code != 0 || !strings.Contains(out, `  "protection_domain.rxe" -> "listener.loop";`) || strings.Contains(out, `  "listener.loop" -> "protection_domain.rxe";`) {
		t.Errorf("graph -type=plan-destroy: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := stateCmd(t, dir, "", "graph", "-type=apply"); code != 0 || !strings.Contains(out, `  "listener.loop" -> "protection_domain.rxe";`) {
		t.Errorf("graph -type=apply: %d\n%s", code, out)
	}
	if code, _, errs := stateCmd(t, dir, "", "graph", "-type=nope"); code != 1 || !strings.Contains(errs, "plan-destroy") {
		t.Errorf("graph -type=nope: %d %s", code, errs)
	}
}
