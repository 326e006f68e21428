package main

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
		{[]string{"output", "-json"}, 0, `{"addr":{"sensitive":false,"type":"string","value":"10.0.0.1"},"n":{"sensitive":false,"value":3},"secret":{"sensitive":true,"value":{"a":[1,2]}}}` + "\n", ""},
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
