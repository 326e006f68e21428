package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShowHuman(t *testing.T) {
	dir := stateDir(t, testState)
	code, out, errs := stateCmd(t, dir, "", "show")
	if code != 0 {
		t.Fatalf("show: %d %s", code, errs)
	}
	want := `# listener.server:
listener "server" {
    port = 4791
}

# endpoint.client[3]:
endpoint "client" {`
	if !strings.HasPrefix(out, want) {
		t.Fatalf("show starts:\n%s\nwant\n%s", out, want)
	}
	wantEnd := `# endpoint.fanout["b"]:
endpoint "fanout" {
}

Outputs:

addr = "10.0.0.1"
n = 3
secret = (sensitive value)
`
	if !strings.HasSuffix(out, wantEnd) {
		t.Fatalf("show ends:\n%s\nwant\n%s", out, wantEnd)
	}
}

func TestShowNoState(t *testing.T) {
	dir := stateDir(t, "")
	code, out, _ := stateCmd(t, dir, "", "show")
	if code != 0 || out != "No state.\n" {
		t.Fatalf("show without state: %d %q", code, out)
	}
	code, out, _ = stateCmd(t, dir, "", "show", "-json")
	if code != 0 || out != `{"format_version":"1.0"}`+"\n" {
		t.Fatalf("show -json without state: %d %q", code, out)
	}
}

func TestShowJSONAndFile(t *testing.T) {
	dir := stateDir(t, "")
	os.WriteFile(filepath.Join(dir, "saved.rdmastate"), []byte(testState), 0o600)
	code, out, errs := stateCmd(t, dir, "", "show", "-json", "saved.rdmastate")
	if code != 0 {
		t.Fatalf("show -json FILE: %d %s", code, errs)
	}
	var v struct {
		FormatVersion string `json:"format_version"`
		Serial        int
		Values        struct {
			Outputs map[string]struct {
				Sensitive bool
				Value     any
			}
			RootModule struct {
				Resources []struct {
					Address, Mode, Type, Name string
					Index                     any
					Values                    map[string]any
					Facts                     map[string]any
					DependsOn                 []string `json:"depends_on"`
				}
			} `json:"root_module"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rs := v.Values.RootModule.Resources
	if v.FormatVersion != "1.0" || v.Serial != 3 || len(rs) != 4 {
		t.Fatalf("show -json: %+v", v)
	}
	c := rs[1]
	if c.Address != "endpoint.client[3]" || c.Mode != "managed" || c.Type != "endpoint" || c.Name != "client" || c.Index != float64(3) ||
		c.Values["device"] != "mlx5_0" || c.Facts["qp_num"] != float64(123) || len(c.DependsOn) != 1 {
		t.Fatalf("resource: %+v", c)
	}
	if rs[3].Index != "b" || !v.Values.Outputs["secret"].Sensitive {
		t.Fatalf("for_each index or sensitive output: %+v %+v", rs[3], v.Values.Outputs)
	}
	code, _, errs = stateCmd(t, dir, "", "show", "missing.rdmastate")
	if code != 1 || !strings.Contains(errs, "missing.rdmastate") {
		t.Fatalf("show of a missing file: %d %s", code, errs)
	}
}

// Attributes the state records as sensitive show as (sensitive value) in
// show and state show; show -json keeps the values and marks them in
// sensitive_values, as Terraform's.
func TestShowSensitiveAttributes(t *testing.T) {
	st := `{"version":1,"lineage":"` + testLineage + `","serial":1,
 "objects":[{"address":"listener.l","type":"listener","schema_version":0,
   "attributes":{"address":"10.77.0.1","port":7801,"accept":{"private_data":"peer=tok-42","echo":false},"qp":null},
   "facts":{},"sensitive_attributes":[["accept","private_data"],["port"]]}],
 "outputs":{}}`
	dir := stateDir(t, st)
	for _, args := range [][]string{{"show"}, {"state", "show", "listener.l"}} {
		code, out, errs := stateCmd(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		want := `listener "l" {
    address = "10.77.0.1"
    port    = (sensitive value)

    accept {
        echo         = false
        private_data = (sensitive value)
    }
}`
		if strings.Contains(out, "tok-42") || strings.Contains(out, "7801") || !strings.Contains(out, want) {
			t.Errorf("%v shows\n%s\nwant\n%s", args, out, want)
		}
	}
	code, out, errs := stateCmd(t, dir, "", "show", "-json")
	if code != 0 {
		t.Fatalf("show -json: %d %s", code, errs)
	}
	if !strings.Contains(out, `"sensitive_values":{"accept":{"private_data":true},"port":true}`) || !strings.Contains(out, `"peer=tok-42"`) {
		t.Errorf("show -json: %s", out)
	}
	// Without a record, as every state written before it: as before.
	dir = stateDir(t, testState)
	if _, out, _ = stateCmd(t, dir, "", "show", "-json"); !strings.Contains(out, `"sensitive_values":{"tags":{}}`) {
		t.Errorf("show -json of a state without sensitive attributes: %s", out)
	}
}

// show -json of a plan made against a state gives that state as
// prior_state, a state document (terraform-json reads none without its
// format_version), while the state is still the plan's.
func TestShowJSONOfAPlanHasItsPriorState(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d %s", code, errs)
	}
	code, out, errs := planDocument(t, meta, dir, "-destroy")
	if code != 0 {
		t.Fatalf("plan -destroy, show -json: %d %s", code, errs)
	}
	var doc struct {
		Prior struct {
			FormatVersion string `json:"format_version"`
			Values        struct {
				RootModule struct {
					Resources []struct {
						Address string `json:"address"`
					} `json:"resources"`
				} `json:"root_module"`
			} `json:"values"`
		} `json:"prior_state"`
		Changes []struct {
			Reason string `json:"action_reason"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Prior.FormatVersion == "" || len(doc.Prior.Values.RootModule.Resources) != 4 {
		t.Errorf("prior_state: %+v", doc.Prior)
	}
	for _, c := range doc.Changes {
		if c.Reason != "" { // as Terraform's: a destroy plan gives none
			t.Errorf("a destroy plan's change gives the reason %q", c.Reason)
		}
	}
}

// show -json of a plan has Terraform's configuration section: each
// block's expressions as constants or the references they make.
func TestShowJSONOfAPlanHasTheConfiguration(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	code, out, errs := planDocument(t, meta, dir)
	if code != 0 {
		t.Fatalf("plan, show -json: %d %s", code, errs)
	}
	var doc struct {
		Configuration struct {
			RootModule struct {
				Resources []struct {
					Address     string                     `json:"address"`
					Expressions map[string]json.RawMessage `json:"expressions"`
					Count       json.RawMessage            `json:"count_expression"`
				} `json:"resources"`
				Outputs map[string]struct {
					Expression json.RawMessage `json:"expression"`
				} `json:"outputs"`
			} `json:"root_module"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range doc.Configuration.RootModule.Resources {
		got[r.Address+" count"] = string(r.Count)
		for name, e := range r.Expressions {
			got[r.Address+" "+name] = string(e)
		}
	}
	for k, want := range map[string]string{
		"endpoint.client count":   `{"constant_value":2}`,
		"endpoint.client address": `{"references":["listener.loop.address","listener.loop"]}`,
		"endpoint.client qp":      `[{}]`,
		"listener.loop port":      `{"constant_value":7471}`,
	} {
		if got[k] != want {
			t.Errorf("%s = %s, want %s", k, got[k], want)
		}
	}
	if e := string(doc.Configuration.RootModule.Outputs["port"].Expression); e != `{"references":["listener.loop.port","listener.loop"]}` {
		t.Errorf("output port's expression: %s", e)
	}
}
