package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Postconditions are checked by apply against the object made: a failure
// fails the apply, names the condition and its message, and the object
// stays in the state. Preconditions that use values known only after
// apply are checked by apply before it makes the object.
func TestConditionsAtApply(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, strings.Replace(planTestConfig, "  qp {}", `  qp {}

  lifecycle {
    postcondition {
      condition     = self.qp_num > 19
      error_message = "endpoint ${self.id} got QP ${self.qp_num}."
    }
  }`, 1))
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 1 || !strings.Contains(errs, "endpoint.client[0]: postcondition failed: endpoint endpoint.client[0] got QP 19.") &&
		!strings.Contains(errs, "endpoint.client[1]: postcondition failed: endpoint endpoint.client[1] got QP 19.") {
		t.Fatalf("apply with a failing postcondition: %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "main.rdma.hcl:") || stateObjects(t, dir) != 4 {
		t.Fatalf("the postcondition's place or the object was lost (%d objects):\n%s", stateObjects(t, dir), errs)
	}

	f = newMemFabric()
	meta = withFabric(t, f)
	dir = planDir(t, planTestConfig+`
endpoint "late" {
  address = listener.loop.address
  port    = listener.loop.port
  lifecycle {
    precondition {
      condition     = endpoint.client[0].qp_num > 1000
      error_message = "client[0] must have a QP number above 1000."
    }
  }
}
`)
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 1 || !strings.Contains(errs, "endpoint.late: precondition failed: client[0] must have a QP number above 1000.") || strings.Contains(out, "endpoint.late: Creating...") {
		t.Fatalf("apply with a failing precondition known only after apply: %d\n%s\n%s", code, out, errs)
	}
	if _, ok := f.live["endpoint.late"]; ok {
		t.Fatal("the precondition failed, yet endpoint.late was made")
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "list"); strings.Contains(out, "endpoint.late") {
		t.Fatalf("the precondition failed, yet the state records endpoint.late (as being made?):\n%s", out)
	}

	// The same when the block's attributes use values known only after
	// apply too (apply evaluates the instance anew).
	f = newMemFabric()
	meta = withFabric(t, f)
	dir = planDir(t, planTestConfig+`
endpoint "late" {
  address        = listener.loop.address
  port           = listener.loop.port
  source_address = endpoint.client[0].local_address
  lifecycle {
    precondition {
      condition     = endpoint.client[0].qp_num > 1000
      error_message = "client[0] must have a QP number above 1000."
    }
  }
}
`)
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 1 || !strings.Contains(errs, "endpoint.late: precondition failed: client[0] must have a QP number above 1000.") {
		t.Fatalf("apply with a failing precondition, attributes known after apply: %d\n%s\n%s", code, out, errs)
	}
	if _, ok := f.live["endpoint.late"]; ok {
		t.Fatal("the precondition failed, yet endpoint.late was made")
	}
}

// Check blocks warn, as Terraform's: plan with what it knows, apply with
// what it made; neither fails for them.
func TestCheckBlocksWarn(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+`
check "ports" {
  assert {
    condition     = listener.loop.port > 8000
    error_message = "listener.loop listens on ${listener.loop.port}, below 8000."
  }
}
check "connections" {
  assert {
    condition     = alltrue([for e in endpoint.client : e.status == "established"])
    error_message = "Not every client is established."
  }
  assert {
    condition     = alltrue([for e in endpoint.client : e.qp_num > 100])
    error_message = "Some client has a QP number of 100 or less."
  }
}
`)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(errs, "Warning: Check block assertion failed") || !strings.Contains(errs, `check "ports": listener.loop listens on 7471, below 8000.`) ||
		strings.Contains(errs, "QP number") {
		t.Fatalf("plan: %d\n%s", code, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(errs, `check "connections": Some client has a QP number of 100 or less.`) || strings.Contains(errs, "Not every client is established") ||
		strings.Count(errs, `check "ports": listener.loop listens`) != 1 ||
		!strings.Contains(out, "Apply complete!") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
}

// As Terraform's, a failing precondition stops a plan or an apply, not a
// destroy (nor a refresh-only plan, nor graph); a sensitive error_message
// is not shown.
func TestPreconditionsDoNotStopDestroy(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(strings.Replace(planTestConfig, "  qp {}", `  qp {}

  lifecycle {
    precondition {
      condition     = var.limit > 10
      error_message = "limit ${var.limit} is too low."
    }
  }`, 1)+"variable \"limit\" {\n  default   = 3\n  sensitive = true\n}\n"), 0o644)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 1 || !strings.Contains(errs, "Resource precondition failed") || strings.Contains(errs, "limit 3") ||
		!strings.Contains(errs, "The error message included a sensitive value, so it will not be displayed.") {
		t.Fatalf("plan: %d\n%s", code, errs)
	}
	for _, args := range [][]string{{"plan", "-refresh-only"}, {"graph"}} {
		if code, out, errs := meta.cmd(t, dir, "", args...); code != 0 {
			t.Fatalf("%v: %d\n%s\n%s", args, code, out, errs)
		}
	}
	if code, out, errs := meta.cmd(t, dir, "", "destroy", "-auto-approve", "-no-color"); code != 0 || len(f.live) != 0 {
		t.Fatalf("destroy: %d\n%s\n%s", code, out, errs)
	}
}

// A postcondition of an object the plan leaves as it is is checked while
// planning, against the object as refreshed, as Terraform does: apply
// would change nothing there and never check it.
func TestPostconditionsOfUnchangedObjectsAtPlan(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  lifecycle {
    postcondition {
      condition     = self.status == "established"
      error_message = "endpoint.e is ${self.status}."
    }
  }
}
`)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan with the postcondition met: %d\n%s\n%s", code, out, errs)
	}
	f.mu.Lock()
	f.status = map[string]string{"endpoint.e": "reconnecting"}
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 1 || !strings.Contains(errs, "Resource postcondition failed") || !strings.Contains(errs, "endpoint.e is reconnecting.") || !strings.Contains(errs, "main.rdma.hcl:11:") {
		t.Fatalf("plan with the postcondition failing on the refreshed object: %d\n%s\n%s", code, out, errs)
	}
	// -refresh=false checks the state as recorded.
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-refresh=false", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan -refresh=false: %d\n%s\n%s", code, out, errs)
	}
}
