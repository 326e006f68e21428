package config

import (
	"strconv"
	"strings"
	"testing"
)

// One problem in many instances of a block is one error that says how
// many more there are; a few are each reported.
func TestSameProblemInManyInstancesFolds(t *testing.T) {
	load := func(count int) []string {
		src := `listener "l" {
  count   = ` + strconv.Itoa(count) + `
  address = "10.77.0.1"
  port    = 65536 - 3 + count.index
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 0
}
`
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
		var out []string
		for _, d := range diags {
			out = append(out, d.Summary+": "+d.Detail)
		}
		return out
	}
	// Instances 3 to 5 are out of range: three errors, and the endpoint's.
	if got := load(6); len(got) != 4 || strings.Contains(strings.Join(got, "\n"), "more instances") {
		t.Errorf("3 bad instances:\n%s", strings.Join(got, "\n"))
	}
	got := load(1000)
	if len(got) != 2 || !strings.Contains(got[0], "got 65536.\n\n(The same problem in 996 more instances of this block.)") || !strings.HasPrefix(got[1], "Invalid port: port must be from 1 to 65535; got 0.") {
		t.Errorf("997 bad instances:\n%s", strings.Join(got, "\n"))
	}
}
