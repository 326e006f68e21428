package render

import (
	"encoding/json"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// planned_values leave unknown attributes out, as Terraform's, and keep
// an unknown list element's place with null.
func TestOmitUnknowns(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"id":    cty.UnknownVal(cty.String),
		"port":  cty.NumberIntVal(7471),
		"none":  cty.NullVal(cty.String),
		"qp":    cty.ObjectVal(map[string]cty.Value{"num": cty.UnknownVal(cty.Number), "type": cty.StringVal("rc")}),
		"ports": cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.UnknownVal(cty.Number)}),
	})
	b, _ := json.Marshal(jsonValue(omitUnknowns(v)))
	if want := `{"none":null,"port":7471,"ports":[1,null],"qp":{"type":"rc"}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if omitUnknowns(cty.UnknownVal(cty.String)) != cty.NilVal {
		t.Error("an unknown value is not left out")
	}
}
