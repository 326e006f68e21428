package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// importToGenerate takes an import block whose target has no block for
// plan -generate-config-out: one whole object (Terraform generates no
// count or for_each block either) with its id evaluated.
func importToGenerate(cfg *Config, l *Loader, im *Import) hcl.Diagnostics {
	if im.To.Key != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Configuration generation for count and for_each is not supported",
			Detail:  fmt.Sprintf("rdmaform -generate-config-out writes one block per import, without count or for_each (as Terraform's): import to %s instead, or write the block of %s yourself.", im.To.Resource, im.To.Resource),
			Subject: im.toRange.Ptr()}}
	}
	for _, prev := range l.ImportsToGenerate {
		if prev.To == im.To {
			return hcl.Diagnostics{duplicateDiag(fmt.Sprintf("import of %s", im.To), im.DeclRange, prev.DeclRange)}
		}
	}
	if im.id != nil {
		v, diags := cfg.Eval(im.id)
		if diags.HasErrors() {
			return diags
		}
		if msg := importIDProblem(v); msg != "" {
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid import id", Detail: msg, Subject: im.id.Range().Ptr()})
		}
		im.ID = v.AsString()
	}
	l.ImportsToGenerate = append(l.ImportsToGenerate, im)
	return nil
}
