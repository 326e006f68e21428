package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// parseInChunks parses src as parseSources does, in chunks of about size
// bytes, but one chunk after the other.
func parseInChunks(src []byte, name string, size int) (*hcl.File, hcl.Diagnostics, int) {
	offsets := chunkOffsets(src, size)
	if offsets == nil {
		c := parseChunk(src, name, hcl.InitialPos, len(src))
		return c.file, c.diags, 1
	}
	chunks := make([]parsedChunk, len(offsets))
	for j, start := range offsets {
		end := len(src)
		if j+1 < len(offsets) {
			end = offsets[j+1].Byte
		}
		chunks[j] = parseChunk(src, name, start, end)
	}
	if f, ok := mergeChunks(src, chunks); ok {
		return f, nil, len(chunks)
	}
	c := parseChunk(src, name, hcl.InitialPos, len(src))
	return c.file, c.diags, 1
}

// checkChunkedParse fails unless parsing src in chunks of every small size
// gives exactly the file and diagnostics of parsing it in one piece.
func checkChunkedParse(t *testing.T, src []byte) {
	t.Helper()
	whole, wholeDiags := hclsyntax.ParseConfig(src, "main.rdma.hcl", hcl.InitialPos)
	for _, size := range []int{1, 7, 64} {
		f, diags, _ := parseInChunks(src, "main.rdma.hcl", size)
		if !reflect.DeepEqual(diags, wholeDiags) {
			t.Fatalf("size %d: diagnostics\n%v\nwant\n%v", size, diags, wholeDiags)
		}
		if !reflect.DeepEqual(f, whole) {
			t.Fatalf("size %d: the file parsed in chunks differs from the file parsed whole", size)
		}
	}
}

var chunkCases = map[string]string{
	"blocks":               "listener \"a\" {\n  port = 1\n}\n\nendpoint \"b\" {\n  port = listener.a.port\n}\n",
	"comments":             "# head\n// also\nlistener \"a\" {}\n/* a\nlistener \"x\" {}\n*/\nendpoint \"b\" {} # tail\nendpoint \"c\" {}\n",
	"strings":              "locals {\n  a = \"}\\\"${\"{\"}\\n$${x\"\n}\nlocals {\n  b = \"%{ if true }\\\"{x%{ endif }\"\n}\nlocals {\n  c = 1\n}\n",
	"multi-line list":      "locals {\n  a = [\n1,\n2]\n}\nlocals {\n  b = [\nlocals\n]\n}\n",
	"heredoc":              "locals {\n  a = <<EOT\n}\nlisten \"x\" {\nEOT\n}\nlocals {\n  b = 1\n}\n",
	"top-level attributes": "a = 1\nb = 2\na = 3\nlistener \"x\" {}\n",
	"one-line blocks":      "listener \"a\" { port = 1 }\nlistener \"b\" { port = 2 }\nlistener \"c\" { port = 3 }\n",
	"error in a chunk":     "listener \"a\" {\n  port = 1\n}\nlistener \"b\" {\n  port = \n}\nlistener \"c\" {}\n",
	"unbalanced":           "listener \"a\" {\n}\n}\nlistener \"b\" {\n}\n",
	"unterminated comment": "listener \"a\" {}\nlistener \"b\" {}\n/* listener \"c\" {}\n",
	"crlf":                 "listener \"a\" {\r\n  port = 1\r\n}\r\nlistener \"b\" {\r\n}\r\n",
	"bom":                  "\xef\xbb\xbflistener \"a\" {}\nlistener \"b\" {}\n",
	"unicode":              "listener \"ä\" {\n  address = \"ö\"\n}\nlistener \"b\" {\n  address = \"ü\"\n}\n",
}

func TestChunkedParseMatchesWholeParse(t *testing.T) {
	for name, src := range chunkCases {
		t.Run(name, func(t *testing.T) { checkChunkedParse(t, []byte(src)) })
	}
	for _, tc := range ruleCases {
		t.Run("rule "+tc.name, func(t *testing.T) { checkChunkedParse(t, []byte(tc.src)) })
	}
	paths, _ := filepath.Glob("../examples/*/*.rdma.hcl")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p, func(t *testing.T) { checkChunkedParse(t, src) })
	}
	for name, shape := range map[string]func(int) map[string]string{"count": countShape, "distinct": distinctShape, "chain": chainShape} {
		for file, src := range shape(40) {
			t.Run(name+"/"+file, func(t *testing.T) { checkChunkedParse(t, []byte(src)) })
		}
	}
}

// TestChunkedParseSplits keeps the optimization in use: a big file of
// blocks is parsed in many chunks, and one with a heredoc in one piece.
func TestChunkedParseSplits(t *testing.T) {
	src := []byte(chainShape(1000)["main.rdma.hcl"])
	if _, _, n := parseInChunks(src, "main.rdma.hcl", chunkBytes); n < len(src)/chunkBytes/2 {
		t.Errorf("%d bytes parsed in %d chunks", len(src), n)
	}
	heredoc := append([]byte("locals {\n  a = <<EOT\nx\nEOT\n}\n"), src...)
	if _, _, n := parseInChunks(heredoc, "main.rdma.hcl", chunkBytes); n != 1 {
		t.Errorf("a file with a heredoc was parsed in %d chunks", n)
	}
}

// FuzzChunkedParse checks that parsing in chunks never changes a file or
// its diagnostics.
func FuzzChunkedParse(f *testing.F) {
	for _, src := range chunkCases {
		f.Add([]byte(src))
	}
	for _, tc := range ruleCases {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte(strings.Repeat("endpoint \"e\" {\n  address = \"${x}\"\n}\n", 3)))
	f.Fuzz(func(t *testing.T, src []byte) { checkChunkedParse(t, src) })
}
