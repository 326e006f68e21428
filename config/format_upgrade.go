package config

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// upgradeBody rewrites what Terraform's fmt rewrites, in b and its nested
// blocks: an expression that is one interpolation and nothing else
// ("${var.a}") loses its quotes (HCL gives it the same value either way),
// and a variable's legacy type (type = "string", type = list) becomes a
// type constraint.
func upgradeBody(b *hclwrite.Body, isVariable bool) {
	for name, a := range b.Attributes() {
		tokens := a.Expr().BuildTokens(nil)
		if isVariable && name == "type" {
			if t := modernType(tokens); t != nil {
				b.SetAttributeRaw(name, t)
				continue
			}
		}
		if inner := unwrappedInterpolation(tokens); inner != nil {
			b.SetAttributeRaw(name, inner)
		}
	}
	for _, nb := range b.Blocks() {
		upgradeBody(nb.Body(), nb.Type() == "variable")
	}
}

// modernType is the type constraint for a legacy one: the strings
// "string", "list" and "map" (0.11's types, whose elements were strings)
// and the bare keywords list, map and set (any element type); nil
// otherwise.
func modernType(tokens hclwrite.Tokens) hclwrite.Tokens {
	tokens = withoutSpace(tokens)
	var name string
	switch {
	case len(tokens) == 1 && tokens[0].Type == hclsyntax.TokenIdent:
		switch string(tokens[0].Bytes) {
		case "list":
			name = "list(any)"
		case "map":
			name = "map(any)"
		case "set":
			name = "set(any)"
		}
	case len(tokens) == 3 && tokens[0].Type == hclsyntax.TokenOQuote && tokens[1].Type == hclsyntax.TokenQuotedLit && tokens[2].Type == hclsyntax.TokenCQuote:
		switch string(tokens[1].Bytes) {
		case "string":
			name = "string"
		case "list":
			name = "list(string)"
		case "map":
			name = "map(string)"
		}
	}
	if name == "" {
		return nil
	}
	return hclwrite.Tokens{{Type: hclsyntax.TokenIdent, Bytes: []byte(name)}}
}

// unwrappedInterpolation is the expression inside "${ ... }" when the
// quotes hold that one interpolation and nothing else; nil otherwise. An
// expression over several lines goes in parentheses, without which it
// would not parse unquoted.
func unwrappedInterpolation(tokens hclwrite.Tokens) hclwrite.Tokens {
	tokens = withoutSpace(tokens)
	n := len(tokens)
	if n < 5 || tokens[0].Type != hclsyntax.TokenOQuote || tokens[1].Type != hclsyntax.TokenTemplateInterp ||
		tokens[n-2].Type != hclsyntax.TokenTemplateSeqEnd || tokens[n-1].Type != hclsyntax.TokenCQuote {
		return nil
	}
	inner := tokens[2 : n-2]
	depth := 0 // quoted strings nested in the expression may hold templates of their own
	for _, t := range inner {
		switch {
		case t.Type == hclsyntax.TokenOQuote || t.Type == hclsyntax.TokenOHeredoc:
			depth++
		case t.Type == hclsyntax.TokenCQuote || t.Type == hclsyntax.TokenCHeredoc:
			depth--
		case depth > 0:
		case t.Type == hclsyntax.TokenTemplateInterp || t.Type == hclsyntax.TokenTemplateControl ||
			t.Type == hclsyntax.TokenTemplateSeqEnd || t.Type == hclsyntax.TokenQuotedLit:
			return nil // "${a}${b}", "${a}-x": a template, not one expression
		}
	}
	for len(inner) > 0 && inner[0].Type == hclsyntax.TokenNewline {
		inner = inner[1:]
	}
	for len(inner) > 0 && inner[len(inner)-1].Type == hclsyntax.TokenNewline {
		inner = inner[:len(inner)-1]
	}
	if len(inner) == 0 {
		return nil
	}
	for _, t := range inner {
		if t.Type == hclsyntax.TokenNewline && !(inner[0].Type == hclsyntax.TokenOParen && inner[len(inner)-1].Type == hclsyntax.TokenCParen) {
			// Across lines, unquoted, it parses only in parentheses.
			out := make(hclwrite.Tokens, 0, len(inner)+2)
			out = append(out, &hclwrite.Token{Type: hclsyntax.TokenOParen, Bytes: []byte("(")})
			out = append(out, inner...)
			return append(out, &hclwrite.Token{Type: hclsyntax.TokenCParen, Bytes: []byte(")")})
		}
	}
	return inner
}

// withoutSpace is tokens without a trailing comment or newline, which
// belong to the attribute's line rather than its expression.
func withoutSpace(tokens hclwrite.Tokens) hclwrite.Tokens {
	for len(tokens) > 0 {
		switch tokens[len(tokens)-1].Type {
		case hclsyntax.TokenNewline, hclsyntax.TokenComment:
			tokens = tokens[:len(tokens)-1]
			continue
		}
		return tokens
	}
	return tokens
}
