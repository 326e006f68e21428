package command

import (
	"strings"
	"testing"
)

func TestOutput(t *testing.T) {
	dir := stateDir(t, testState)
	for _, tc := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{"output"}, 0, "addr = \"10.0.0.1\"\nn = 3\nsecret = <sensitive>\n", ""},
		{[]string{"output", "addr"}, 0, "\"10.0.0.1\"\n", ""},
		{[]string{"output", "-no-color", "addr"}, 0, "\"10.0.0.1\"\n", ""},
		{[]string{"output", "secret"}, 0, "{\n    a = [\n        1,\n        2,\n    ]\n}\n", ""},
		{[]string{"output", "-raw", "addr"}, 0, "10.0.0.1", ""},
		{[]string{"output", "-raw", "n"}, 0, "3", ""},
		{[]string{"output", "-raw", "secret"}, 1, "", "only supports strings, numbers, and boolean values"},
		{[]string{"output", "-json", "secret"}, 0, "{\"a\":[1,2]}\n", ""},
		// An output the state records no type for (n, secret) has the
		// type its value implies, as Terraform always gives one.
		{[]string{"output", "-json"}, 0, `{
  "addr": {
    "sensitive": false,
    "type": "string",
    "value": "10.0.0.1"
  },
  "n": {
    "sensitive": false,
    "type": "number",
    "value": 3
  },
  "secret": {
    "sensitive": true,
    "type": [
      "object",
      {
        "a": [
          "tuple",
          [
            "number",
            "number"
          ]
        ]
      }
    ],
    "value": {
      "a": [
        1,
        2
      ]
    }
  }
}
`, ""},
		{[]string{"output", "nope"}, 1, "", `Output "nope" not found`},
		{[]string{"output", "a", "b"}, 1, "", "Unexpected argument"},
	} {
		code, out, errs := stateCmd(t, dir, "", tc.args...)
		if code != tc.code || out != tc.out || !strings.Contains(errs, tc.inErr) {
			t.Errorf("%v: %d %q %q; want %d %q %q", tc.args, code, out, errs, tc.code, tc.out, tc.inErr)
		}
	}
	empty := stateDir(t, "")
	code, out, errs := stateCmd(t, empty, "", "output")
	if code != 0 || out != "" || !strings.Contains(errs, "Warning: No outputs found") {
		t.Fatalf("output without state: %d %q %q", code, out, errs)
	}
}

// With the type the state records, outputs read as terraform output
// shows them: the console's syntax, collections named by their type,
// every key quoted, strings of lines as heredocs.
func TestOutputShowsTypedValuesAsTerraform(t *testing.T) {
	dir := stateDir(t, `{"version":1,"lineage":"`+testLineage+`","serial":1,"rdmaform_version":"0.1.0","objects":[],
 "outputs":{
  "ports":{"value":[7471,7472],"type":["list","number"]},
  "peers":{"value":{"a b":"10.0.0.1","c":"10.0.0.2"},"type":["map","string"]},
  "pair":{"value":{"qp":17,"host":"h"},"type":["object",{"qp":"number","host":"string"}]},
  "motd":{"value":"one\ntwo\n","type":"string"}}}`)
	code, out, errs := stateCmd(t, dir, "", "output")
	want := `motd = <<EOT
one
two
EOT
pair = {
  "host" = "h"
  "qp" = 17
}
peers = tomap({
  "a b" = "10.0.0.1"
  "c" = "10.0.0.2"
})
ports = tolist([
  7471,
  7472,
])
`
	if code != 0 || out != want {
		t.Errorf("output: %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
}
