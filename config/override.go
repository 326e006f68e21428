package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Override files are Terraform's: a file named override.rdma.hcl (or
// .rdma.json) or ending in _override.rdma.hcl is read after the others,
// in name order, and each of its blocks changes the block of the same
// type and labels that the other files declare instead of declaring one:
// its arguments replace theirs, and its nested blocks replace every
// nested block of the same type (a dynamic "probe" block counting as
// probe blocks), but for lifecycle, merged argument by argument. A locals
// block overrides local values by name; an rdmaform block replaces the
// settings it gives (required_version, agent, backend).

// isOverrideFile reports whether a configuration file overrides others.
func isOverrideFile(name string) bool {
	base := filepath.Base(name)
	for _, suffix := range []string{HCLSuffix, JSONSuffix} {
		if stem, ok := strings.CutSuffix(base, suffix); ok {
			return stem == "override" || strings.HasSuffix(stem, "_override")
		}
	}
	return false
}

// fileName is the name a parsed file was read from.
func fileName(f *hcl.File) string { return f.Body.MissingItemRange().Filename }

// overridable are the top-level blocks an override file may override,
// identified by their type and labels.
var overridable = map[string]string{
	"variable": "variable", "output": "output", "protection_domain": "protection_domain",
	"listener": "listener", "endpoint": "endpoint", "agent": "agent",
}

// applyOverrides merges the blocks of the override files' contents into
// the blocks of the others (base), in order. Locals and settings are
// returned for decodeFiles and decodeSettings to apply.
func applyOverrides(base, overrides []*hcl.BodyContent) (locals []*hcl.Attribute, settings hcl.Blocks, diags hcl.Diagnostics) {
	type key struct{ typ, labels string }
	byKey := map[key]*hcl.Block{}
	for _, c := range base {
		for _, b := range c.Blocks {
			if _, ok := overridable[b.Type]; ok {
				k := key{b.Type, strings.Join(b.Labels, "\x00")}
				if byKey[k] == nil {
					byKey[k] = b
				}
			}
		}
	}
	for _, c := range overrides {
		for _, ob := range c.Blocks {
			switch ob.Type {
			case "locals":
				attrs, d := ob.Body.JustAttributes()
				diags = append(diags, d...)
				for _, a := range attrs {
					locals = append(locals, a)
				}
				continue
			case "rdmaform":
				settings = append(settings, ob)
				continue
			}
			if _, ok := overridable[ob.Type]; !ok {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unsupported override",
					Detail:   fmt.Sprintf("A %s block cannot be overridden: an override file may change variable, output, locals, rdmaform, agent, protection_domain, listener and endpoint blocks. Put it in a file whose name does not end in _override.", ob.Type),
					Subject:  ob.DefRange.Ptr(),
				})
				continue
			}
			b := byKey[key{ob.Type, strings.Join(ob.Labels, "\x00")}]
			if b == nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Missing base " + ob.Type + " block to override",
					Detail:   fmt.Sprintf("There is no %s %q block in the files that are not override files, so this override has nothing to change. Declare it in another file, or move this block out of the override file.", ob.Type, strings.Join(ob.Labels, " ")),
					Subject:  ob.DefRange.Ptr(),
				})
				continue
			}
			b.Body = mergeBody{base: b.Body, override: ob.Body}
		}
	}
	return locals, settings, diags
}

// overrideLocals replaces local values by name; one the other files do
// not declare is an error.
func (d *declarations) overrideLocals(locals []*hcl.Attribute) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range locals {
		if _, ok := d.locals[a.Name]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing base local value definition to override",
				Detail:   fmt.Sprintf("There is no local value %q in the files that are not override files, so this override has nothing to change.", a.Name),
				Subject:  a.NameRange.Ptr(),
			})
			continue
		}
		d.locals[a.Name] = a
	}
	return diags
}

// overrideSettings replaces in s each setting that an override file's
// rdmaform block gives.
func overrideSettings(s *Settings, blocks hcl.Blocks) (*Settings, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	versionsFrom := "" // the override file whose constraints s has
	for _, b := range blocks {
		o, d := decodeSettings(hcl.Blocks{b})
		diags = append(diags, d...)
		if len(o.RequiredVersions) > 0 {
			// As Terraform's: an override file's constraints replace all
			// the others, not adding to them.
			if b.DefRange.Filename != versionsFrom {
				s.RequiredVersions, versionsFrom = nil, b.DefRange.Filename
			}
			s.RequiredVersions = append(s.RequiredVersions, o.RequiredVersions...)
		}
		if o.Backend != nil {
			s.Backend = o.Backend
		}
		if o.Agent != nil {
			s.Agent = o.Agent
		}
	}
	return s, diags
}

// mergeBody is a block's body with an override's merged in: the
// override's arguments replace the base's, and its nested blocks replace
// the base's blocks of the same type (see mergeContent). Arguments required by the schema
// may come from either.
type mergeBody struct {
	base, override hcl.Body
}

func (b mergeBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	relaxed := relaxedSchema(schema)
	bc, diags := b.base.Content(relaxed)
	oc, d := b.override.Content(relaxed)
	diags = append(diags, d...)
	c := mergeContent(bc, oc)
	return c, append(diags, b.missingRequired(schema, c)...)
}

func (b mergeBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	relaxed := relaxedSchema(schema)
	bc, brest, diags := b.base.PartialContent(relaxed)
	oc, orest, d := b.override.PartialContent(relaxed)
	diags = append(diags, d...)
	c := mergeContent(bc, oc)
	return c, mergeBody{base: brest, override: orest}, append(diags, b.missingRequired(schema, c)...)
}

func (b mergeBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs, diags := b.base.JustAttributes()
	over, d := b.override.JustAttributes()
	diags = append(diags, d...)
	out := make(hcl.Attributes, len(attrs)+len(over))
	for n, a := range attrs {
		out[n] = a
	}
	for n, a := range over {
		out[n] = a
	}
	return out, diags
}

func (b mergeBody) MissingItemRange() hcl.Range { return b.base.MissingItemRange() }

func (b mergeBody) missingRequired(schema *hcl.BodySchema, c *hcl.BodyContent) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range schema.Attributes {
		if _, ok := c.Attributes[a.Name]; a.Required && !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing required argument",
				Detail:   fmt.Sprintf("The argument %q is required, but neither the block nor its override sets it.", a.Name),
				Subject:  b.MissingItemRange().Ptr(),
			})
		}
	}
	return diags
}

// relaxedSchema is schema with no argument required: an argument may be
// in the base or in the override.
func relaxedSchema(schema *hcl.BodySchema) *hcl.BodySchema {
	out := &hcl.BodySchema{Blocks: schema.Blocks, Attributes: make([]hcl.AttributeSchema, len(schema.Attributes))}
	for i, a := range schema.Attributes {
		a.Required = false
		out.Attributes[i] = a
	}
	return out
}

func mergeContent(base, override *hcl.BodyContent) *hcl.BodyContent {
	c := &hcl.BodyContent{
		Attributes:       make(hcl.Attributes, len(base.Attributes)+len(override.Attributes)),
		MissingItemRange: base.MissingItemRange,
	}
	for n, a := range base.Attributes {
		c.Attributes[n] = a
	}
	for n, a := range override.Attributes {
		c.Attributes[n] = a
	}
	replaced := map[string]bool{}
	for _, ob := range override.Blocks {
		replaced[generatedType(ob)] = true
	}
	var baseLifecycle *hcl.Block
	for _, bb := range base.Blocks {
		if bb.Type == "lifecycle" && baseLifecycle == nil {
			baseLifecycle = bb
		}
		if !replaced[generatedType(bb)] {
			c.Blocks = append(c.Blocks, bb)
		}
	}
	for _, ob := range override.Blocks {
		if ob.Type == "lifecycle" && baseLifecycle != nil {
			// As Terraform's: a lifecycle block is merged argument by
			// argument (an override setting prevent_destroy keeps the
			// base's ignore_changes).
			merged := *ob
			merged.Body = mergeBody{base: baseLifecycle.Body, override: ob.Body}
			ob = &merged
		}
		c.Blocks = append(c.Blocks, ob)
	}
	return c
}

// generatedType is the type of the blocks b makes: a dynamic "probe"
// block stands for probe blocks, and replaces them or is replaced by them
// as one would.
func generatedType(b *hcl.Block) string {
	if b.Type == "dynamic" && len(b.Labels) > 0 {
		return b.Labels[0]
	}
	return b.Type
}
