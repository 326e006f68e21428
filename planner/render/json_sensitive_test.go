package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// A sensitive output's JSON change keeps its value, flagged sensitive, as
// Terraform's plan JSON does (the human plan hides it).
func TestJSONKeepsSensitiveOutputValues(t *testing.T) {
	p := &planner.Plan{OutputChanges: []planner.OutputChange{{Name: "token", Action: planner.Create,
		Before: cty.NullVal(cty.DynamicPseudoType), After: cty.StringVal("s3cret"), Sensitive: true}}}
	var b bytes.Buffer
	if err := JSON(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"token":{"actions":["create"],"before":null,"after":"s3cret","after_unknown":false,"before_sensitive":true,"after_sensitive":true}`) {
		t.Errorf("plan JSON: %s", b.String())
	}
	var h bytes.Buffer
	Human(&h, p, false)
	if strings.Contains(h.String(), "s3cret") || !strings.Contains(h.String(), "(sensitive value)") {
		t.Errorf("the human plan shows the value:\n%s", h.String())
	}
}
