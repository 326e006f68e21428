package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// HCL's Body.Content and PartialContent build several maps and a copy of
// the body per call, to report every kind of problem. Most bodies have
// none: for a native-syntax body whose every item the schema accepts, the
// content is read straight from the syntax tree. Any other body, and any
// body with something to report, goes through HCL as before, so the
// diagnostics are HCL's own.

// splitMeta is body.PartialContent(metaSchema) for a resource body: the
// meta-arguments and lifecycle blocks, and the rest.
func splitMeta(body hcl.Body) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return body.PartialContent(metaSchema)
	}
	meta := &hcl.BodyContent{MissingItemRange: sb.MissingItemRange()}
	var restAttrs hclsyntax.Attributes
	for name, a := range sb.Attributes {
		if name == "count" || name == "for_each" || name == "depends_on" {
			if meta.Attributes == nil {
				meta.Attributes = hcl.Attributes{}
			}
			meta.Attributes[name] = a.AsHCLAttribute()
			continue
		}
		if restAttrs == nil {
			restAttrs = make(hclsyntax.Attributes, len(sb.Attributes))
		}
		restAttrs[name] = a
	}
	var restBlocks hclsyntax.Blocks
	for _, b := range sb.Blocks {
		if b.Type != "lifecycle" {
			restBlocks = append(restBlocks, b)
			continue
		}
		if len(b.Labels) > 0 {
			return body.PartialContent(metaSchema) // HCL reports the label
		}
		meta.Blocks = append(meta.Blocks, b.AsHCLBlock())
	}
	if meta.Attributes == nil {
		meta.Attributes = hcl.Attributes{}
		if meta.Blocks == nil {
			return meta, body, nil // nothing to take out
		}
	}
	if restAttrs == nil {
		restAttrs = hclsyntax.Attributes{}
	}
	rest := &hclsyntax.Body{Attributes: restAttrs, Blocks: restBlocks, SrcRange: sb.SrcRange, EndRange: sb.EndRange}
	return meta, rest, nil
}

// bodyContent is body.Content(schema.bodySchema).
func bodyContent(body hcl.Body, schema *Block) (*hcl.BodyContent, hcl.Diagnostics) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok || !acceptsAll(sb, schema) {
		return body.Content(schema.bodySchema)
	}
	content := &hcl.BodyContent{
		Attributes:       make(hcl.Attributes, len(sb.Attributes)),
		MissingItemRange: sb.MissingItemRange(),
	}
	attrs := make([]hcl.Attribute, 0, len(sb.Attributes))
	for name, a := range sb.Attributes {
		attrs = append(attrs, hcl.Attribute{Name: a.Name, Expr: a.Expr, Range: a.SrcRange, NameRange: a.NameRange})
		content.Attributes[name] = &attrs[len(attrs)-1]
	}
	if len(sb.Blocks) > 0 {
		content.Blocks = make(hcl.Blocks, len(sb.Blocks))
		for i, b := range sb.Blocks {
			content.Blocks[i] = b.AsHCLBlock()
		}
	}
	return content, nil
}

// acceptsAll reports whether Content would find nothing to report in sb:
// every attribute and block is in the schema, nested blocks have no
// labels, and every required attribute is set.
func acceptsAll(sb *hclsyntax.Body, schema *Block) bool {
	for name := range sb.Attributes {
		if a := schema.Attribute(name); a == nil || a.Computed {
			return false // computed ones get our own diagnostic
		}
	}
	for _, b := range sb.Blocks {
		if len(b.Labels) > 0 || schema.NestedBlock(b.Type) == nil {
			return false
		}
	}
	for _, a := range schema.Attributes {
		if a.Required && !a.Computed {
			if _, ok := sb.Attributes[a.Name]; !ok {
				return false
			}
		}
	}
	return true
}
