package command

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// uiLines decodes apply -json's output: every line must be one JSON
// object with Terraform's common fields.
func uiLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)\n%s", line, err, out)
		}
		for _, k := range []string{"@level", "@message", "@module", "@timestamp", "type"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line without %s: %s", k, line)
			}
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func ofType(msgs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

func TestApplyJSONStreamsTerraformsUIMessages(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)

	code, out, errs := meta.cmd(t, dir, "", "apply", "-json")
	// With -json the error is a diagnostic too, on standard output.
	if code != 1 || errs != "" || !strings.Contains(out, `"summary":"Plan file or auto-approve required"`) {
		t.Fatalf("apply -json without -auto-approve: %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = meta.cmd(t, dir, "", "apply", "-json", "-auto-approve")
	if code != 0 {
		t.Fatalf("apply -json: %d\n%s\n%s", code, out, errs)
	}
	msgs := uiLines(t, out)
	if msgs[0]["type"] != "version" || msgs[0]["ui"] != "1.2" {
		t.Errorf("first message: %v, want the version", msgs[0])
	}
	planned := ofType(msgs, "planned_change")
	if len(planned) != 4 {
		t.Fatalf("%d planned_change messages, want 4:\n%s", len(planned), out)
	}
	ch := planned[0]["change"].(map[string]any)
	res := ch["resource"].(map[string]any)
	if ch["action"] != "create" || res["addr"] == nil || res["resource_type"] == nil {
		t.Errorf("planned_change: %v", planned[0])
	}
	starts, completes := ofType(msgs, "apply_start"), ofType(msgs, "apply_complete")
	if len(starts) != 4 || len(completes) != 4 {
		t.Fatalf("%d apply_start and %d apply_complete, want 4 each:\n%s", len(starts), len(completes), out)
	}
	for _, c := range completes {
		h := c["hook"].(map[string]any)
		if h["action"] != "create" || h["id_key"] == nil || h["id_value"] == nil || !strings.Contains(c["@message"].(string), "Creation complete after") {
			t.Errorf("apply_complete: %v", c)
		}
	}
	sums := ofType(msgs, "change_summary")
	if len(sums) != 2 || sums[0]["@message"] != "Plan: 4 to add, 0 to change, 0 to destroy." ||
		sums[1]["@message"] != "Apply complete! Resources: 4 added, 0 changed, 0 destroyed." ||
		sums[1]["changes"].(map[string]any)["operation"] != "apply" || sums[1]["changes"].(map[string]any)["add"] != float64(4) {
		t.Errorf("change_summary: %v", sums)
	}
	outputs := ofType(msgs, "outputs")
	if len(outputs) != 1 {
		t.Fatalf("outputs: %v", outputs)
	}
	port := outputs[0]["outputs"].(map[string]any)["port"].(map[string]any)
	if port["value"] != float64(7471) || port["type"] != "number" || port["sensitive"] != false {
		t.Errorf("outputs: %v", outputs[0])
	}
	if msgs[len(msgs)-1]["type"] != "outputs" {
		t.Errorf("last message: %v", msgs[len(msgs)-1])
	}

	// A failure is an apply_errored and an error diagnostic; destroy
	// reports its own summary.
	f.fail = map[string]error{"endpoint.client[1]": errors.New("rdma_resolve_addr: EHOSTUNREACH")}
	meta.cmd(t, dir, "", "taint", "endpoint.client[1]")
	code, out, _ = meta.cmd(t, dir, "", "apply", "-json", "-auto-approve")
	msgs = uiLines(t, out)
	errored, diags := ofType(msgs, "apply_errored"), ofType(msgs, "diagnostic")
	if code != 1 || len(errored) != 1 || len(diags) != 1 || diags[0]["@level"] != "error" ||
		!strings.Contains(diags[0]["diagnostic"].(map[string]any)["summary"].(string), "EHOSTUNREACH") {
		t.Fatalf("apply -json with a failure: %d\n%s", code, out)
	}
	if msg := errored[0]["@message"]; !strings.HasPrefix(msg.(string), "endpoint.client[1]: Creation errored after ") {
		t.Errorf("apply_errored's message is not Terraform's: %v", msg)
	}
	if hook := errored[0]["hook"].(map[string]any); hook["action"] != "create" || hook["elapsed_seconds"] == nil {
		t.Errorf("apply_errored's hook: %v", hook)
	}
	if d, ok := diags[0]["diagnostic"].(map[string]any)["detail"]; !ok || d != "" {
		t.Errorf("an apply error's diagnostic has no \"detail\": \"\" (Terraform's has): %v", diags[0])
	}
	f.fail = nil
	code, out, errs = meta.cmd(t, dir, "", "destroy", "-json", "-auto-approve")
	msgs = uiLines(t, out)
	sums = ofType(msgs, "change_summary")
	if code != 0 || len(sums) != 2 || sums[1]["changes"].(map[string]any)["operation"] != "destroy" || len(ofType(msgs, "outputs")) != 0 {
		t.Fatalf("destroy -json: %d\n%s\n%s", code, out, errs)
	}
}

func TestApplyJSONConfigurationErrorsAreDiagnostics(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, "endpoint \"e\" {\n  address = \"10.77.0.1\"\n  port    = \"x\"\n}\n")
	code, out, _ := meta.cmd(t, dir, "", "apply", "-json", "-auto-approve")
	msgs := uiLines(t, out)
	diags := ofType(msgs, "diagnostic")
	if code != 1 || len(diags) == 0 {
		t.Fatalf("apply -json of a bad configuration: %d\n%s", code, out)
	}
	d := diags[0]["diagnostic"].(map[string]any)
	if rng, ok := d["range"].(map[string]any); !ok || rng["filename"] == nil || d["snippet"] == nil {
		t.Errorf("diagnostic without its range and snippet: %v", d)
	}
}
