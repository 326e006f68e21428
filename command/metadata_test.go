package command

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
)

// metadata functions -json is Terraform 1.11's document, as
// hashicorp/terraform-json reads it, listing every function a
// configuration can call and none it cannot.
func TestMetadataFunctionsJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"metadata", "functions", "-json"}, Meta{Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	var doc tfjson.MetadataFunctions
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("terraform-json does not read it: %v\n%s", err, out.String())
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	offered := config.Offered()
	if len(offered) < 100 {
		t.Fatalf("only %d functions offered", len(offered))
	}
	for name := range offered {
		sig := doc.Signatures[name]
		if sig == nil {
			t.Errorf("%s is not listed", name)
			continue
		}
		if sig.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	for name := range doc.Signatures {
		if _, ok := offered[name]; !ok {
			t.Errorf("%s is listed but a configuration cannot call it", name)
		}
	}
	for _, name := range []string{"timestamp", "uuid", "type"} {
		if doc.Signatures[name] != nil {
			t.Errorf("%s is listed", name)
		}
	}
	// Signatures as Terraform gives them.
	if s := doc.Signatures["textencodebase64"]; s == nil || s.ReturnType != cty.String || len(s.Parameters) != 2 ||
		s.Parameters[0].Name != "string" || s.Parameters[1].Name != "encoding" || s.Parameters[1].Type != cty.String || s.VariadicParameter != nil {
		t.Errorf("textencodebase64: %+v", s)
	}
	if s := doc.Signatures["format"]; s == nil || s.VariadicParameter == nil || s.VariadicParameter.Name != "args" || !s.VariadicParameter.IsNullable ||
		s.VariadicParameter.Type != cty.DynamicPseudoType || s.ReturnType != cty.String {
		t.Errorf("format: %+v", s)
	}
	if s := doc.Signatures["tolist"]; s == nil || !s.ReturnType.Equals(cty.List(cty.DynamicPseudoType)) {
		t.Errorf("tolist: %+v", s)
	}
	if s := doc.Signatures["plantimestamp"]; s == nil || len(s.Parameters) != 0 || s.ReturnType != cty.String {
		t.Errorf("plantimestamp: %+v", s)
	}
}

// Without -json, as Terraform's, metadata functions says -json is
// required, and shows its help.
func TestMetadataFunctionsNeedsJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"metadata", "functions", "-no-color"}, Meta{Out: &out, Err: &errb}); code != 1 {
		t.Errorf("code %d, want 1", code)
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "The `rdmaform metadata functions` command requires the `-json` flag.") ||
		!strings.Contains(errb.String(), "Usage: rdmaform [global options] metadata functions -json") {
		t.Errorf("out %q, stderr:\n%s", out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"metadata", "fonctions"}, Meta{Out: &out, Err: &errb}); code != 1 || !strings.Contains(errb.String(), `rdmaform metadata has no subcommand "fonctions"`) {
		t.Errorf("code %d, stderr:\n%s", code, errb.String())
	}
}
