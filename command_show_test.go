package main

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
					Address, Type, Name string
					Index               any
					Values              map[string]any
					Facts               map[string]any
					DependsOn           []string `json:"depends_on"`
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
	if c.Address != "endpoint.client[3]" || c.Type != "endpoint" || c.Name != "client" || c.Index != float64(3) ||
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
