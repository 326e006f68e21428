package config

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// length counts a string's characters as Terraform's does, so that the
// usual variable validation length(var.name) <= N works on strings; lists,
// maps and objects still count their elements.
func TestLengthOfStringsAndCollections(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
variable "tag" {
  type    = string
  default = "größe"
  validation {
    condition     = length(var.tag) <= 8
    error_message = "tag must be at most 8 characters."
  }
}
locals {
  s = length(var.tag)
  l = length(["a", "b"])
  m = length({ a = 1, b = 2, c = 3 })
}
`})
	for name, want := range map[string]int64{"s": 5, "l": 2, "m": 3} {
		if got := cfg.Locals[name]; !got.RawEquals(cty.NumberIntVal(want)) {
			t.Errorf("local.%s = %#v, want %d", name, got, want)
		}
	}
}

// Terraform's startswith, endswith, strcontains, alltrue, anytrue, one and
// sum are available, with Terraform's results, edge cases included.
func TestTerraformFunctions(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
locals {
  sw      = startswith("rxe0", "rxe")
  sw_no   = startswith("rxe0", "mlx")
  ew      = endswith("10.77.0.1", ".1")
  sc      = strcontains("fd77::1", "::")
  sc_no   = strcontains("fd77::1", "10.")
  all     = alltrue([true, 1 == 1])
  all_no  = alltrue([true, false])
  all_0   = alltrue([])
  all_nul = alltrue([true, null])
  any     = anytrue([false, true])
  any_no  = anytrue([false, null])
  any_0   = anytrue([])
  one_0   = one([])
  one_l0  = one(tolist([]))
  one_1   = one(["a"])
  one_s   = one(toset(["a"]))
  sum     = sum([1, 2, 3.5])
  sum_s   = sum(toset([10, 20]))
}
`})
	for name, want := range map[string]cty.Value{
		"sw": cty.True, "sw_no": cty.False, "ew": cty.True, "sc": cty.True, "sc_no": cty.False,
		"all": cty.True, "all_no": cty.False, "all_0": cty.True, "all_nul": cty.False,
		"any": cty.True, "any_no": cty.False, "any_0": cty.False,
		"one_0": cty.NullVal(cty.DynamicPseudoType), "one_l0": cty.NullVal(cty.DynamicPseudoType),
		"one_1": cty.StringVal("a"), "one_s": cty.StringVal("a"),
		"sum": cty.NumberFloatVal(6.5), "sum_s": cty.NumberIntVal(30),
	} {
		got := cfg.Locals[name]
		if got.IsNull() != want.IsNull() || (!want.IsNull() && got.Equals(want).False()) {
			t.Errorf("local.%s = %#v, want %#v", name, got, want)
		}
	}
	for src, want := range map[string]string{
		`one(["a", "b"])`:         "must be a list, set, or tuple value with either zero or one elements",
		`one(tolist(["a", "b"]))`: "must be a list, set, or tuple value with either zero or one elements",
		`sum([])`:                 "cannot sum an empty list",
		`sum([1, null])`:          "null element",
		`sum("12")`:               "argument must be a list, a set or a tuple; got a string",
		`startswith(1, [])`:       "string required",
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("locals {\n  x = " + src + "\n}\n")}, VarInputs{})
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, want) {
			t.Errorf("%s: %v, want an error with %q", src, diags, want)
		}
	}
	// Unknown arguments give unknown results (validate, values after apply).
	for _, f := range []string{"startswith", "alltrue", "anytrue", "one", "sum"} {
		var args []cty.Value
		switch f {
		case "startswith":
			args = []cty.Value{cty.UnknownVal(cty.String), cty.StringVal("a")}
		case "alltrue", "anytrue":
			args = []cty.Value{cty.ListVal([]cty.Value{cty.UnknownVal(cty.Bool)})}
		case "one":
			args = []cty.Value{cty.UnknownVal(cty.List(cty.String))}
		case "sum":
			args = []cty.Value{cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.UnknownVal(cty.Number)})}
		}
		if v, err := Functions()[f].Call(args); err != nil || v.IsKnown() {
			t.Errorf("%s(%#v) = %#v, %v; want unknown", f, args, v, err)
		}
	}
}
