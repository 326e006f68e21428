package command

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

// tfjsonConfig has a nested block with a value (qp), an output and a
// reference.
const tfjsonConfig = `
protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.rxe.id
}

endpoint "client" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id

  qp {
    max_send_wr = 64
  }
}

output "port" {
  value = listener.loop.port
}
`

// show -json of a saved plan and of a state is what Terraform's own
// reader, hashicorp/terraform-json, reads: tfjson.Plan and tfjson.State
// unmarshal it and Validate, and the values come through. A nested block
// has Terraform's shapes: an object in a value (after, values), a list of
// one block in the configuration's expressions, which is how tfjson reads
// nested blocks (ExpressionData.NestedBlocks); both hold the same.
func TestShowJSONIsReadByTerraformJSON(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, tfjsonConfig)
	plan := filepath.Join(t.TempDir(), "p.plan")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+plan, "-no-color"); code != 0 {
		t.Fatalf("plan: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "show", "-json", plan)
	if code != 0 {
		t.Fatalf("show -json PLAN: %d\n%s", code, errs)
	}
	var p tfjson.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("tfjson.Plan: %v\n%s", err, out)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("tfjson.Plan.Validate: %v", err)
	}
	if p.TerraformVersion != Version {
		t.Errorf("terraform_version %q, want %q", p.TerraformVersion, Version)
	}
	after := map[string]map[string]any{}
	for _, rc := range p.ResourceChanges {
		if !rc.Change.Actions.Create() {
			t.Errorf("%s: actions %v, want create", rc.Address, rc.Change.Actions)
		}
		m, _ := rc.Change.After.(map[string]any)
		after[rc.Address] = m
	}
	if len(after) != 4 || after["listener.loop"]["port"] != float64(7471) {
		t.Fatalf("resource_changes: %v", after)
	}
	qp, _ := after["endpoint.client[1]"]["qp"].(map[string]any)
	if qp["max_send_wr"] != float64(64) {
		t.Errorf("endpoint.client[1]'s after.qp: %v", after["endpoint.client[1]"]["qp"])
	}
	if p.PlannedValues == nil || len(p.PlannedValues.RootModule.Resources) != 4 || p.PlannedValues.Outputs["port"] == nil {
		t.Errorf("planned_values: %+v", p.PlannedValues)
	}
	// The configuration: the same qp block, with the same value.
	if p.Config == nil || p.Config.RootModule == nil {
		t.Fatal("no configuration")
	}
	found := false
	for _, r := range p.Config.RootModule.Resources {
		if r.Address != "endpoint.client" {
			continue
		}
		found = true
		blocks := r.Expressions["qp"].NestedBlocks
		if len(blocks) != 1 || blocks[0]["max_send_wr"] == nil || fmt.Sprint(blocks[0]["max_send_wr"].ConstantValue) != fmt.Sprint(qp["max_send_wr"]) {
			t.Errorf("configuration's endpoint.client qp: %+v, after's: %v", blocks, qp)
		}
		if refs := r.Expressions["address"].References; len(refs) == 0 || refs[0] != "listener.loop.address" {
			t.Errorf("configuration's endpoint.client address: %v", refs)
		}
	}
	if !found {
		t.Error("no endpoint.client in the configuration")
	}

	// show takes its options after the file too (as Terraform's show
	// takes -no-color anywhere).
	if code, out, errs := meta.cmd(t, dir, "", "show", plan, "-no-color"); code != 0 || !strings.Contains(out, "4 to add") || strings.Contains(out, "\x1b[") {
		t.Errorf("show PLAN -no-color: %d\n%s%s", code, out, errs)
	}

	// The state, after apply.
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", plan); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "show", "-json")
	if code != 0 {
		t.Fatalf("show -json: %d\n%s", code, errs)
	}
	var st tfjson.State
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("tfjson.State: %v\n%s", err, out)
	}
	if err := st.Validate(); err != nil {
		t.Fatalf("tfjson.State.Validate: %v", err)
	}
	if st.TerraformVersion != Version {
		t.Errorf("state's terraform_version %q, want %q", st.TerraformVersion, Version)
	}
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	if raw["rdmaform_version"] != Version {
		t.Errorf("state's rdmaform_version %v, want %q (kept beside terraform_version)", raw["rdmaform_version"], Version)
	}
	values := map[string]map[string]any{}
	for _, r := range st.Values.RootModule.Resources {
		values[r.Address] = r.AttributeValues
		if r.Mode != tfjson.ManagedResourceMode || r.ProviderName == "" {
			t.Errorf("%s: mode %q, provider %q", r.Address, r.Mode, r.ProviderName)
		}
	}
	if len(values) != 4 || values["listener.loop"]["port"] != float64(7471) || values["listener.loop"]["address"] != "10.77.0.1" {
		t.Fatalf("state's resources: %v", values)
	}
	if qp, _ := values["endpoint.client[0]"]["qp"].(map[string]any); qp["max_send_wr"] != float64(64) {
		t.Errorf("state's endpoint.client[0] qp: %v", values["endpoint.client[0]"]["qp"])
	}
	if o := st.Values.Outputs["port"]; o == nil || o.Value != float64(7471) {
		t.Errorf("state's output port: %+v", o)
	}
}

// tfjsonChecksConfig has a condition of every kind: a precondition that
// holds, a postcondition on a value known only after apply, an output's
// precondition and a check block whose assertion is false (a warning,
// which does not stop the plan).
const tfjsonChecksConfig = `
listener "loop" {
  address = "10.77.0.1"
  port    = 7471

  lifecycle {
    precondition {
      condition     = 7471 > 1024
      error_message = "The port must not be privileged."
    }
  }
}

endpoint "client" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port

  lifecycle {
    postcondition {
      condition     = self.status == "established"
      error_message = "The endpoint must be established."
    }
  }
}

output "port" {
  value = listener.loop.port
  precondition {
    condition     = listener.loop.port == 7471
    error_message = "The port moved."
  }
}

check "few" {
  assert {
    condition     = length(endpoint.client) > 2
    error_message = "Fewer than three endpoints."
  }
}
`

// show -json has Terraform's checks section, which terraform-json reads:
// in a plan, what the plan's values tell (a postcondition on what is not
// made yet is unknown); in the state, each condition with the objects as
// made.
func TestShowJSONChecksAreReadByTerraformJSON(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, tfjsonChecksConfig)
	plan := filepath.Join(t.TempDir(), "p.plan")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+plan, "-no-color"); code != 0 {
		t.Fatalf("plan: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "show", "-json", plan)
	if code != 0 {
		t.Fatalf("show -json PLAN: %d\n%s", code, errs)
	}
	var p tfjson.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("tfjson.Plan: %v\n%s", err, out)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("tfjson.Plan.Validate: %v", err)
	}
	want := map[string]string{
		"listener.loop":   "resource pass [listener.loop:pass]",
		"endpoint.client": "resource unknown [endpoint.client[0]:unknown endpoint.client[1]:unknown]",
		"output.port":     "output_value pass [output.port:pass]",
		"check.few":       "check fail [check.few:fail Fewer than three endpoints.]",
	}
	if got := checksText(p.Checks); !reflect.DeepEqual(got, want) {
		t.Errorf("the plan's checks:\n got %v\nwant %v\n%s", got, want, out)
	}
	for _, c := range p.Checks {
		if c.Address.Kind == tfjson.CheckKindResource && (c.Address.Mode != tfjson.ManagedResourceMode || c.Address.Type == "" || c.Address.Name == "") {
			t.Errorf("%s: address %+v", c.Address.ToDisplay, c.Address)
		}
		if c.Address.ToDisplay == "endpoint.client" && c.Instances[1].Address.InstanceKey != float64(1) {
			t.Errorf("endpoint.client[1]'s instance_key: %v", c.Instances[1].Address.InstanceKey)
		}
	}

	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", plan); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "show", "-json")
	if code != 0 {
		t.Fatalf("show -json: %d\n%s", code, errs)
	}
	var st tfjson.State
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("tfjson.State: %v\n%s", err, out)
	}
	if err := st.Validate(); err != nil {
		t.Fatalf("tfjson.State.Validate: %v", err)
	}
	want["endpoint.client"] = "resource pass [endpoint.client[0]:pass endpoint.client[1]:pass]"
	if got := checksText(st.Checks); !reflect.DeepEqual(got, want) {
		t.Errorf("the state's checks:\n got %v\nwant %v\n%s", got, want, out)
	}
}

// checksText is each check as "KIND STATUS [INSTANCE:STATUS PROBLEM...]".
func checksText(checks []tfjson.CheckResultStatic) map[string]string {
	out := map[string]string{}
	for _, c := range checks {
		var insts []string
		for _, i := range c.Instances {
			s := i.Address.ToDisplay + ":" + string(i.Status)
			for _, p := range i.Problems {
				s += " " + p.Message
			}
			insts = append(insts, s)
		}
		out[c.Address.ToDisplay] = fmt.Sprintf("%s %s [%s]", c.Address.Kind, c.Status, strings.Join(insts, " "))
	}
	return out
}
