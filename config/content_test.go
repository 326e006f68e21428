package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// checkContent fails unless splitMeta and the fast path of decodeTemplate
// give what HCL's PartialContent and Content give for every resource block
// of src and every block nested in it.
func checkContent(t *testing.T, src []byte) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, "main.rdma.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return
	}
	root, _ := f.Body.Content(rootSchema)
	for _, b := range root.Blocks {
		schema := schemas[addrs.Kind(b.Type)]
		if schema == nil {
			continue
		}
		meta, rest, d := splitMeta(b.Body)
		wantMeta, wantRest, wantD := b.Body.PartialContent(metaSchema)
		if !reflect.DeepEqual(meta, wantMeta) || !reflect.DeepEqual(d, wantD) {
			t.Fatalf("%s: splitMeta gives %#v, %v; want %#v, %v", b.DefRange, meta, d, wantMeta, wantD)
		}
		checkBodyContent(t, rest, wantRest, schema)
	}
}

func checkBodyContent(t *testing.T, body, want hcl.Body, schema *Block) {
	t.Helper()
	def := hcl.Range{Filename: "def"}
	got, d := decodeTemplate(body, schema, def, true)
	wt, wd := decodeTemplate(want, schema, def, false)
	if !reflect.DeepEqual(got, wt) || !reflect.DeepEqual(d, wd) {
		t.Fatalf("decoded straight from the syntax tree: %#v, %v; through HCL's Content: %#v, %v", got, d, wt, wd)
	}
}

func TestBodyContentMatchesHCL(t *testing.T) {
	srcs := map[string]string{
		"meta": `endpoint "a" {
  count      = 2
  depends_on = [listener.l]
  address    = "x"
  port       = 1
  lifecycle {
    prevent_destroy = true
  }
  qp {}
  lifecycle {}
}`,
		"labelled lifecycle": "endpoint \"a\" {\n  address = \"x\"\n  port = 1\n  lifecycle \"x\" {}\n}\n",
		"labelled block":     "endpoint \"a\" {\n  address = \"x\"\n  port = 1\n  qp \"x\" {}\n}\n",
		"computed":           "endpoint \"a\" {\n  address = \"x\"\n  port = 1\n  id = \"x\"\n}\n",
		"missing":            "endpoint \"a\" {\n  address = \"x\"\n  qp { typo = 1 }\n}\n",
		"only meta":          "endpoint \"a\" {\n  count = 1\n}\n",
	}
	for _, tc := range ruleCases {
		srcs["rule "+tc.name] = tc.src
	}
	paths, _ := filepath.Glob("../examples/*/*.rdma.hcl")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = string(b)
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) { checkContent(t, []byte(src)) })
	}
}
