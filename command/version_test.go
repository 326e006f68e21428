package command

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runVersionCmd(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(args, Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
	return code, out.String(), errs.String()
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"-version"}, {"-v"}, {"version", "-no-color"}} {
		if code, out, errs := runVersionCmd(args...); code != 0 || out != "rdmaform v"+Version+"\n" || errs != "" {
			t.Errorf("%v: code %d, out %q, err %q", args, code, out, errs)
		}
	}
}

// version -help shows the help (it printed the version), an unknown flag
// or an argument is an error (they were ignored), and -json is Terraform's.
func TestVersionFlags(t *testing.T) {
	t.Parallel()
	if code, out, errs := runVersionCmd("version", "-help"); code != 0 || out != "" || !strings.Contains(errs, "Usage: rdmaform [global options] version") {
		t.Errorf("-help: code %d, out %q, err %q", code, out, errs)
	}
	for _, args := range [][]string{{"version", "-bogus"}, {"version", "extra"}} {
		if code, out, _ := runVersionCmd(args...); code != 1 || out != "" {
			t.Errorf("%v: code %d, out %q; want 1 and nothing on stdout", args, code, out)
		}
	}
	code, out, errs := runVersionCmd("version", "-json")
	var v struct {
		Version  string `json:"rdmaform_version"`
		Platform string `json:"platform"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Version != Version || v.Platform == "" {
		t.Errorf("-json: code %d, out %q, err %q (%v)", code, out, errs, err)
	}
}
