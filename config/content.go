package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// HCL's Body.Content and PartialContent build several maps and a copy of
// the body per call, to report every kind of problem. Most bodies have
// none: for a native-syntax body whose every item the schema accepts, the
// content is read straight from the syntax tree (splitMeta here,
// decodeTemplate for block bodies). Any other body, and any body with
// something to report, goes through HCL as before, so the diagnostics are
// HCL's own.

// splitMeta is body.PartialContent(metaSchema) for a resource body: the
// meta-arguments and lifecycle blocks, and the rest.
func splitMeta(body hcl.Body) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return body.PartialContent(metaSchema)
	}
	meta := &hcl.BodyContent{Attributes: hcl.Attributes{}, MissingItemRange: sb.MissingItemRange()}
	nAttrs := 0
	for name := range sb.Attributes {
		if isMetaAttr(name) {
			nAttrs++
		}
	}
	nBlocks := 0
	for _, b := range sb.Blocks {
		if b.Type == "lifecycle" {
			if len(b.Labels) > 0 {
				return body.PartialContent(metaSchema) // HCL reports the label
			}
			nBlocks++
		}
	}
	if nAttrs == 0 && nBlocks == 0 {
		return meta, body, nil
	}
	rest := &hclsyntax.Body{
		Attributes: make(hclsyntax.Attributes, len(sb.Attributes)-nAttrs),
		Blocks:     make(hclsyntax.Blocks, 0, len(sb.Blocks)-nBlocks),
		SrcRange:   sb.SrcRange,
		EndRange:   sb.EndRange,
	}
	for name, a := range sb.Attributes {
		if isMetaAttr(name) {
			meta.Attributes[name] = a.AsHCLAttribute()
		} else {
			rest.Attributes[name] = a
		}
	}
	for _, b := range sb.Blocks {
		if b.Type == "lifecycle" {
			meta.Blocks = append(meta.Blocks, b.AsHCLBlock())
		} else {
			rest.Blocks = append(rest.Blocks, b)
		}
	}
	return meta, rest, nil
}

func isMetaAttr(name string) bool {
	return name == "count" || name == "for_each" || name == "depends_on" || name == "agent"
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
