package config

import (
	"encoding/json"
	"io"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics renders diags for people: severity, summary,
// file:line:col, the offending source with the range underlined, and the
// detail. width wraps the text (0: no wrapping).
func (l *Loader) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, color bool, width uint) error {
	return hcl.NewDiagnosticTextWriter(w, l.parser.Files(), width, color).WriteDiagnostics(diags)
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
	Detail   string       `json:"detail,omitempty"`
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

// JSONSnippet is the source line(s) a diagnostic points at.
type JSONSnippet struct {
	StartLine            int    `json:"start_line"`
	Code                 string `json:"code"`
	HighlightStartOffset int    `json:"highlight_start_offset"`
	HighlightEndOffset   int    `json:"highlight_end_offset"`
}

// JSON converts diags to their machine-readable form.
func (l *Loader) JSON(diags hcl.Diagnostics) JSONDiagnostics {
	out := JSONDiagnostics{FormatVersion: "1.0", Diagnostics: []JSONDiagnostic{}}
	files := l.parser.Files()
	for _, d := range diags {
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
	}
}
