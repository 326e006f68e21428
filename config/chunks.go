package config

import (
	"bytes"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// HCL's lexer collects a whole file's tokens in one slice that grows by
// copying, about 100 bytes a token. For a file of thousands of blocks that
// slice is most of what loading allocates, and the garbage collector scans
// it again and again while it grows. Parsing the file in chunks of a few
// top-level items instead costs half the CPU and allocation, and lets the
// chunks of one big file be parsed concurrently. The chunks' bodies are
// merged into the very file HCL would have produced: a chunk starts at a
// line start, is parsed with its true position, and every range is
// absolute. Whenever a chunk reports any diagnostic, or two chunks set the
// same top-level argument, the whole file is parsed again in one piece so
// that diagnostics are exactly HCL's.

// chunkBytes is roughly the size of a chunk: big enough that the cost of
// setting up a parser is small, small enough that its token slice stays a
// few hundred tokens.
const chunkBytes = 2 << 10

// chunkOffsets returns where the chunks of an HCL native-syntax file start
// (the first at the start of the file), each about size bytes and each starting at a line that
// begins a top-level item. It returns nil when the file should be parsed
// in one piece: it is small, or it holds something this scanner does not
// follow (a heredoc, an unterminated string or comment, an unbalanced
// bracket, invalid UTF-8).
func chunkOffsets(src []byte, size int) []hcl.Pos {
	if len(src) < 2*size || !utf8.Valid(src) {
		return nil // HCL's lexer may take a newline into an invalid sequence
	}
	// frames is the nesting of expressions and quoted strings: an
	// expression frame counts its open brackets; the outermost is the
	// file's top level, the others are template interpolations.
	type frame struct {
		str   bool
		depth int
	}
	frames := []frame{{}}
	offsets := []hcl.Pos{hcl.InitialPos}
	seenItem := false // an item has started since the last offset
	for i := 0; i < len(src); i++ {
		c := src[i]
		f := &frames[len(frames)-1]
		if f.str {
			switch {
			case c == '\\':
				i++ // the escaped character
			case c == '"':
				frames = frames[:len(frames)-1]
			case c == '\n':
				return nil // unterminated string
			case (c == '$' || c == '%') && i+2 < len(src) && src[i+1] == c && src[i+2] == '{':
				i += 2 // $${ and %%{ are literal
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
				i++
				frames = append(frames, frame{})
			}
			continue
		}
		if len(frames) == 1 && f.depth == 0 && (i == 0 || src[i-1] == '\n') && isIdentStart(c) {
			if last := offsets[len(offsets)-1]; seenItem && i-last.Byte >= size {
				line := last.Line + bytes.Count(src[last.Byte:i], []byte{'\n'})
				offsets = append(offsets, hcl.Pos{Line: line, Column: 1, Byte: i})
			}
			seenItem = true
		}
		switch c {
		case '"':
			frames = append(frames, frame{str: true})
		case '{', '[', '(':
			f.depth++
		case '}', ']', ')':
			f.depth--
			if f.depth < 0 {
				if len(frames) == 1 {
					return nil
				}
				frames = frames[:len(frames)-1] // the end of an interpolation
			}
		case '#':
			i = endOfLine(src, i)
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				i = endOfLine(src, i)
			} else if i+1 < len(src) && src[i+1] == '*' {
				end := bytes.Index(src[i+2:], []byte("*/"))
				if end < 0 {
					return nil
				}
				i += 2 + end + 1
			}
		case '<':
			if i+1 < len(src) && src[i+1] == '<' {
				return nil // a heredoc
			}
		}
	}
	if len(frames) != 1 || frames[0].depth != 0 || len(offsets) < 2 {
		return nil
	}
	return offsets
}

// endOfLine is the index of the newline ending the line at i, or the last
// index of src.
func endOfLine(src []byte, i int) int {
	if n := bytes.IndexByte(src[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(src) - 1
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// parsedChunk is one chunk's parse.
type parsedChunk struct {
	file  *hcl.File
	diags hcl.Diagnostics
}

// parseChunk parses src[start.Byte:end], which begins a line, at its
// position in src.
func parseChunk(src []byte, name string, start hcl.Pos, end int) parsedChunk {
	f, diags := hclsyntax.ParseConfig(src[start.Byte:end], name, start)
	return parsedChunk{file: f, diags: diags}
}

// mergeChunks assembles the file parsed in chunks; ok is false when the
// whole file must be parsed in one piece instead (see above).
func mergeChunks(src []byte, chunks []parsedChunk) (*hcl.File, bool) {
	n := 0
	for _, c := range chunks {
		if len(c.diags) > 0 {
			return nil, false
		}
		n += len(c.file.Body.(*hclsyntax.Body).Blocks)
	}
	merged := hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: make(hclsyntax.Blocks, 0, n)}
	for _, c := range chunks {
		b := c.file.Body.(*hclsyntax.Body)
		for name, a := range b.Attributes {
			if _, dup := merged.Attributes[name]; dup {
				return nil, false
			}
			merged.Attributes[name] = a
		}
		merged.Blocks = append(merged.Blocks, b.Blocks...)
	}
	first := chunks[0].file.Body.(*hclsyntax.Body)
	last := chunks[len(chunks)-1].file.Body.(*hclsyntax.Body)
	merged.SrcRange = hcl.RangeBetween(first.SrcRange, last.SrcRange)
	merged.EndRange = last.EndRange
	// The first chunk's file navigates its body (block contexts in
	// diagnostics) through this pointer: it becomes the merged body.
	*first = merged
	f := chunks[0].file
	f.Bytes = src
	return f, true
}
