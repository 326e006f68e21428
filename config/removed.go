package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Removed is a removed block, as Terraform's: the state's objects at From
// (a block, with Whole, or one instance) are no longer in the
// configuration. With Destroy false the plan forgets them (drops them from
// the state and leaves them to the agent) instead of destroying them.
type Removed struct {
	From      addrs.Instance
	Whole     bool
	Destroy   bool
	DeclRange hcl.Range
}

// Matches reports whether the state's object at addr is one r removes.
func (r *Removed) Matches(addr addrs.Instance) bool {
	if r.Whole {
		return addr.Resource == r.From.Resource
	}
	return addr == r.From
}

var (
	removedSchema          = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}}, Blocks: []hcl.BlockHeaderSchema{{Type: "lifecycle"}}}
	removedLifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "destroy", Required: true}}}
)

func decodeRemoved(b *hcl.Block) (*Removed, hcl.Diagnostics) {
	content, diags := b.Body.Content(removedSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	r := &Removed{DeclRange: b.DefRange}
	from, whole, d := movedAddress(content.Attributes["from"])
	diags = append(diags, d...)
	r.From, r.Whole = from, whole
	if len(content.Blocks) == 0 {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing lifecycle block",
			Detail:  "A removed block says what becomes of the objects: lifecycle { destroy = false } forgets them (the agent keeps them), destroy = true destroys them.",
			Subject: b.DefRange.Ptr()})
	}
	for _, lb := range content.Blocks[1:] {
		diags = append(diags, duplicateDiag("lifecycle block", lb.DefRange, content.Blocks[0].DefRange))
	}
	lc, d := content.Blocks[0].Body.Content(removedLifecycleSchema)
	diags = append(diags, d...)
	if a, ok := lc.Attributes["destroy"]; ok {
		v, d := literal(a, cty.Bool)
		diags = append(diags, d...)
		r.Destroy = !v.IsNull() && v.True()
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return r, diags
}

// checkRemoved reports removed blocks whose from is still declared.
func checkRemoved(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, r := range cfg.Removed {
		res := cfg.Resources[r.From.Resource]
		if res == nil {
			continue
		}
		if _, ok := cfg.Instances[r.From]; r.Whole || ok {
			what := r.From.String()
			if r.Whole {
				what = r.From.Resource.String()
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Removed object still exists",
				Detail:  fmt.Sprintf("This statement declares that %s was removed, but it is still declared at %s.", what, res.DeclRange),
				Subject: r.DeclRange.Ptr()})
		}
	}
	return diags
}
