package config

import (
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
