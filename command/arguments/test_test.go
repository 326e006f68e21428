package arguments

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
)

func TestParseTest(t *testing.T) {
	got, diags := ParseTest([]string{"-filter=a.rdmatest.hcl", "-filter", "tests/b.rdmatest.hcl", "-verbose", "-var=x=1", "-var-file=v.rdmavars", "-json", "-no-color", "-test-directory=checks"})
	want := &Test{Filters: []string{"a.rdmatest.hcl", "tests/b.rdmatest.hcl"}, TestDirectory: "checks", Verbose: true,
		Vars: Vars{Args: config.VarArgs{{Value: "x=1"}, {File: true, Value: "v.rdmavars"}}}, View: View{JSON: true, NoColor: true}}
	if len(diags) > 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v %v", got, diags)
	}
	if got, _ := ParseTest(nil); got.TestDirectory != "tests" {
		t.Fatalf("default test directory %q", got.TestDirectory)
	}
	if _, diags := ParseTest([]string{"main.rdmatest.hcl"}); !strings.Contains(diags.Error(), "test takes no arguments") {
		t.Fatalf("%v", diags)
	}
	if got, _ := ParseTest([]string{"-help"}); !got.Help {
		t.Fatal("-help")
	}
}
