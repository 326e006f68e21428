package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

const base64Config = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data_base64        = "3q2+7w=="
    reject_private_data_base64 = "/w=="
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  connect {
    private_data_base64 = "AAEC/4CA"
  }
}
`

// The base64 forms of private data print as any string attribute does,
// force replacement when they change, as the text forms do, and a state
// written before they existed (without them) plans no change.
func TestHumanPrivateDataBase64(t *testing.T) {
	p := plan(t, load(t, base64Config), nil, planner.Options{})
	out := human(p)
	for _, want := range []string{
		"          + private_data_base64        = \"3q2+7w==\"\n",
		"          + reject_private_data_base64 = \"/w==\"\n",
		"          + private_data_base64 = \"AAEC/4CA\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("create lacks %q:\n%s", want, out)
		}
	}
	st := applied(t, p)

	src := strings.Replace(base64Config, `"AAEC/4CA"`, `"AAEC/4CB"`, 1)
	src = strings.Replace(src, `"/w=="`, `"/g=="`, 1)
	out = human(plan(t, load(t, src), st, planner.Options{}))
	for _, want := range []string{
		"  # listener.l must be replaced\n",
		"          ~ reject_private_data_base64 = \"/w==\" -> \"/g==\" # forces replacement\n",
		"  # endpoint.e must be replaced\n",
		"          ~ private_data_base64 = \"AAEC/4CA\" -> \"AAEC/4CB\" # forces replacement\n",
		"Plan: 2 to add, 0 to change, 2 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("update lacks %q:\n%s", want, out)
		}
	}

	// The state of an earlier rdmaform has no base64 attributes: they read
	// as null, which is what a configuration without them has.
	plain := load(t, loopback)
	st = applied(t, plan(t, plain, nil, planner.Options{}))
	stripped := 0
	for _, o := range st.Objects {
		var attrs map[string]any
		if err := json.Unmarshal(o.Attributes, &attrs); err != nil {
			t.Fatal(err)
		}
		for _, block := range []string{"accept", "connect"} {
			if b, ok := attrs[block].(map[string]any); ok {
				delete(b, "private_data_base64")
				delete(b, "reject_private_data_base64")
			}
		}
		raw, _ := json.Marshal(attrs)
		if !bytes.Equal(raw, o.Attributes) {
			stripped++
		}
		o.Attributes = raw
	}
	if stripped != 3 { // the listener and both endpoints
		t.Fatalf("%d objects stripped of the base64 attributes, want 3", stripped)
	}
	if got := human(plan(t, plain, st, planner.Options{Refresher: liveAll{st: st}})); !strings.Contains(got, "No changes.") {
		t.Errorf("a state without the base64 attributes:\n%s", got)
	}
}
