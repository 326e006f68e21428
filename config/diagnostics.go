package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcled"

	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// WriteDiagnostics renders diags for people: severity, summary,
// file:line:col, the offending source with the range underlined, and the
// detail. width wraps the text (0: no wrapping). They are written in
// source order (see SortDiagnostics).
//
// HCL's writer scans the whole file for every diagnostic, which makes
// thousands of diagnostics in a large file quadratic; in a large file each
// diagnostic is therefore written against a window holding only the lines
// it shows, and the snippet's line numbers are put back afterwards.
func (l *Loader) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, color bool, width uint) error {
	files := l.parser.Files()
	var buf bytes.Buffer
	for _, d := range SortDiagnostics(diags) {
		// A diagnostic may quote the agent or a peer (an error's words):
		// nothing in it may drive the terminal.
		safe := *d
		safe.Summary, safe.Detail = termsafe.Text(d.Summary), termsafe.Text(d.Detail)
		d := &safe
		var f *hcl.File
		if d.Subject != nil {
			f = files[d.Subject.Filename]
		}
		buf.Reset()
		out := []byte(nil)
		if f == nil || len(f.Bytes) < windowMin {
			if err := hcl.NewDiagnosticTextWriter(&buf, files, width, color).WriteDiagnostic(d); err != nil {
				return err
			}
			out = buf.Bytes()
		} else {
			wd, wf, lineOffset := window(d, f)
			if err := hcl.NewDiagnosticTextWriter(&buf, map[string]*hcl.File{d.Subject.Filename: wf}, width, color).WriteDiagnostic(wd); err != nil {
				return err
			}
			out = renumber(buf.Bytes(), lineOffset)
		}
		if _, err := w.Write(withColumn(out, d)); err != nil {
			return err
		}
	}
	return nil
}

// withColumn turns HCL's "on FILE line N" header into "on FILE:N:C", so
// that the position reads as compilers and editors give it, column
// included, also where the underline is not shown (without colour).
func withColumn(out []byte, d *hcl.Diagnostic) []byte {
	if d.Subject == nil {
		return out
	}
	r := d.Subject
	old := fmt.Sprintf("  on %s line %d", r.Filename, r.Start.Line)
	i := bytes.Index(out, []byte(old))
	if i < 0 {
		return out
	}
	pos := fmt.Sprintf("  on %s:%d:%d", r.Filename, r.Start.Line, max(r.Start.Column, 1))
	res := make([]byte, 0, len(out)+8)
	res = append(res, out[:i]...)
	res = append(res, pos...)
	return append(res, out[i+len(old):]...)
}

// windowMin is the file size from which diagnostics are windowed.
const windowMin = 4 << 10

// window returns a copy of d and a stand-in for its file holding only the
// lines d shows, and how many lines precede them.
func window(d *hcl.Diagnostic, f *hcl.File) (*hcl.Diagnostic, *hcl.File, int) {
	src := f.Bytes
	snip := *d.Subject
	if d.Context != nil && d.Context.Filename == snip.Filename {
		snip = hcl.RangeOver(snip, *d.Context)
	}
	start := min(max(snip.Start.Byte, 0), len(src))
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := min(max(snip.End.Byte, start), len(src))
	for end < len(src) && src[end] != '\n' {
		end++
	}
	lineOffset := max(snip.Start.Line-1, 0)
	move := func(r *hcl.Range) *hcl.Range {
		if r == nil || r.Filename != d.Subject.Filename {
			return r
		}
		c := *r
		c.Start.Byte -= start
		c.End.Byte -= start
		c.Start.Line -= lineOffset
		c.End.Line -= lineOffset
		return &c
	}
	c := *d
	c.Subject = move(d.Subject)
	c.Context = move(d.Context)
	return &c, &hcl.File{Bytes: src[start:end], Nav: shiftedNav{f.Nav, start}}, lineOffset
}

// renumber fixes the header and snippet line numbers of one rendered
// diagnostic: the "on FILE line N" line and the "%4d: " lines up to the
// first blank line after it.
func renumber(out []byte, offset int) []byte {
	if offset == 0 {
		return out
	}
	lines := bytes.SplitAfter(out, []byte("\n"))
	var res bytes.Buffer
	inSnippet := false
	for _, ln := range lines {
		switch {
		case !inSnippet && bytes.HasPrefix(ln, []byte("  on ")):
			if i := bytes.Index(ln, []byte(" line ")); i >= 0 {
				j := i + len(" line ")
				k := j
				for k < len(ln) && ln[k] >= '0' && ln[k] <= '9' {
					k++
				}
				if n, err := strconv.Atoi(string(ln[j:k])); err == nil {
					res.Write(ln[:j])
					res.WriteString(strconv.Itoa(n + offset))
					res.Write(ln[k:])
					inSnippet = true
					continue
				}
			}
		case inSnippet && len(bytes.TrimSpace(ln)) == 0:
			inSnippet = false
		case inSnippet:
			if i := bytes.Index(ln, []byte(": ")); i > 0 {
				if n, err := strconv.Atoi(string(bytes.TrimSpace(ln[:i]))); err == nil {
					fmt.Fprintf(&res, "%4d", n+offset)
					res.Write(ln[i:])
					continue
				}
			}
		}
		res.Write(ln)
	}
	return res.Bytes()
}

// shiftedNav answers the writer's "in listener "a"" question for a window
// by asking the original file at the original offset.
type shiftedNav struct {
	nav   any
	shift int
}

func (n shiftedNav) ContextString(offset int) string {
	if cs, ok := n.nav.(interface{ ContextString(int) string }); ok {
		return cs.ContextString(offset + n.shift)
	}
	return ""
}

// JSONDiagnostics is the machine-readable form of a validation result, in
// the shape of `terraform validate -json`.
type JSONDiagnostics struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []JSONDiagnostic `json:"diagnostics"`
}

// JSONDiagnostic is one diagnostic in JSONDiagnostics.
type JSONDiagnostic struct {
	Severity string       `json:"severity"` // "error" or "warning"
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"` // "" too, as Terraform's
	Range    *JSONRange   `json:"range,omitempty"`
	Snippet  *JSONSnippet `json:"snippet,omitempty"`
}

// JSONRange is a source range; lines and columns count from 1, bytes from 0.
type JSONRange struct {
	Filename string  `json:"filename"`
	Start    JSONPos `json:"start"`
	End      JSONPos `json:"end"`
}

// JSONPos is a position in a source file.
type JSONPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// JSONSnippet is the source line(s) a diagnostic points at. Context is
// the block they are in (`listener "a"`), null at the top level; Values
// are the values of the expression's references, as Terraform's, those
// the text form shows after "with" (none when the diagnostic has no
// expression).
type JSONSnippet struct {
	Context              *string               `json:"context"`
	StartLine            int                   `json:"start_line"`
	Code                 string                `json:"code"`
	HighlightStartOffset int                   `json:"highlight_start_offset"`
	HighlightEndOffset   int                   `json:"highlight_end_offset"`
	Values               []JSONExpressionValue `json:"values"`
}

// JSONExpressionValue is one reference's value: "var.objs" and "is set of
// object with 1 element".
type JSONExpressionValue struct {
	Traversal string `json:"traversal"`
	Statement string `json:"statement"`
}

// JSON converts diags to their machine-readable form, in source order.
func (l *Loader) JSON(diags hcl.Diagnostics) JSONDiagnostics {
	out := JSONDiagnostics{FormatVersion: "1.0", Diagnostics: []JSONDiagnostic{}}
	files := l.parser.Files()
	for _, d := range SortDiagnostics(diags) {
		jd := JSONDiagnostic{Summary: d.Summary, Detail: d.Detail, Severity: "warning"}
		if d.Severity == hcl.DiagError {
			jd.Severity = "error"
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
		if r := d.Subject; r != nil {
			jd.Range = &JSONRange{
				Filename: r.Filename,
				Start:    JSONPos{r.Start.Line, r.Start.Column, r.Start.Byte},
				End:      JSONPos{r.End.Line, r.End.Column, r.End.Byte},
			}
			if f := files[r.Filename]; f != nil {
				jd.Snippet = snippet(f.Bytes, *r)
				if c := hcled.ContextString(f, r.Start.Byte); jd.Snippet != nil && c != "" {
					jd.Snippet.Context = &c
				}
				if jd.Snippet != nil {
					jd.Snippet.Values = expressionValues(d)
				}
			}
		}
		out.Diagnostics = append(out.Diagnostics, jd)
	}
	out.Valid = out.ErrorCount == 0
	return out
}

// WriteJSON writes the JSON form of diags with a trailing newline.
func (l *Loader) WriteJSON(w io.Writer, diags hcl.Diagnostics) error {
	b, err := json.MarshalIndent(l.JSON(diags), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// snippet returns the whole lines covered by r.
func snippet(src []byte, r hcl.Range) *JSONSnippet {
	if r.Start.Byte < 0 || r.End.Byte > len(src) || r.Start.Byte > r.End.Byte {
		return nil
	}
	start := r.Start.Byte
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := r.End.Byte
	for end < len(src) && src[end] != '\n' {
		end++
	}
	return &JSONSnippet{
		StartLine:            r.Start.Line,
		Code:                 string(src[start:end]),
		HighlightStartOffset: r.Start.Byte - start,
		HighlightEndOffset:   r.End.Byte - start,
		Values:               []JSONExpressionValue{},
	}
}
