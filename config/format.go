package config

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns src in canonical layout (hclwrite.Format). A source with
// syntax errors is not formatted: the errors are returned, with the parser
// l keeps so that WriteDiagnostics can show the source.
func (l *Loader) Format(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	if _, diags := l.parser.ParseHCL(src, filename); diags.HasErrors() {
		return nil, diags
	}
	f, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	upgradeBody(f.Body(), false)
	return hclwrite.Format(f.Bytes()), nil
}

// UnifiedDiff returns a unified diff of a and b by lines, with three lines
// of context, or "" when they are equal.
func UnifiedDiff(a, b []byte, nameA, nameB string) string {
	if bytes.Equal(a, b) {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out bytes.Buffer
	out.WriteString("--- " + nameA + "\n+++ " + nameB + "\n")
	const context = 3
	// Group the edit script into hunks.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		ax, bx := ops[start].ai, ops[start].bi
		var an, bn int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				an++
			}
			if op.kind != '-' {
				bn++
			}
		}
		out.WriteString(hunkHeader(ax, an, bx, bn))
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			if !bytes.HasSuffix([]byte(op.text), []byte("\n")) {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkHeader(ax, an, bx, bn int) string {
	r := func(start, n int) string {
		if n == 0 {
			return itoa(start) + ",0"
		}
		return itoa(start+1) + "," + itoa(n)
	}
	return "@@ -" + r(ax, an) + " +" + r(bx, bn) + " @@\n"
}

func itoa(n int) string {
	return string(appendInt(nil, n))
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	text   string
	ai, bi int // line indexes in a and b where this op starts
}

func splitLines(s []byte) []string {
	var lines []string
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, string(s))
			break
		}
		lines = append(lines, string(s[:i+1]))
		s = s[i+1:]
	}
	return lines
}

// diffLines is an LCS edit script; a common prefix and suffix are peeled
// off first so that the quadratic part covers only the changed middle.
// A middle too large for the table is shown as removed then added.
func diffLines(x, y []string) []diffOp {
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	var ops []diffOp
	for i := 0; i < p; i++ {
		ops = append(ops, diffOp{' ', x[i], i, i})
	}
	mx, my := x[p:len(x)-s], y[p:len(y)-s]
	if len(mx)*len(my) > 4_000_000 {
		for i, l := range mx {
			ops = append(ops, diffOp{'-', l, p + i, p})
		}
		for j, l := range my {
			ops = append(ops, diffOp{'+', l, p + len(mx), p + j})
		}
	} else {
		// lcs[i][j] = LCS length of mx[i:] and my[j:].
		lcs := make([][]int32, len(mx)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(my)+1)
		}
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				ops = append(ops, diffOp{' ', mx[i], p + i, p + j})
				i++
				j++
			case i < len(mx) && (j == len(my) || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', mx[i], p + i, p + j})
				i++
			default:
				ops = append(ops, diffOp{'+', my[j], p + i, p + j})
				j++
			}
		}
	}
	for k := 0; k < s; k++ {
		ops = append(ops, diffOp{' ', x[len(x)-s+k], len(x) - s + k, len(y) - s + k})
	}
	return ops
}
