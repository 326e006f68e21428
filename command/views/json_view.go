package views

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
	"io"
	"strings"
	"sync"
	"time"
)

// Module is the @module of every line rdmaform's machine-readable UI writes.
const Module = "rdmaform.ui"

// JSONView writes Terraform's machine-readable UI: one JSON object per
// line, each with @level, @message, @module, @timestamp and a type. Its
// lines are whole writes under one lock, so the goroutines of an apply
// and its diagnostics do not interleave within a line.
type JSONView struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONView writes the UI on w (standard output).
func NewJSONView(w io.Writer) *JSONView { return &JSONView{w: w} }

// Write writes one message of type typ with the fields its type has.
func (v *JSONView) Write(level, message, typ string, fields map[string]any) {
	m := map[string]any{"@level": level, "@message": message, "@module": Module, "@timestamp": time.Now().Format("2006-01-02T15:04:05.000000Z07:00"), "type": typ}
	for k, f := range fields {
		m[k] = f
	}
	b, err := json.Marshal(m) // keys sorted, as Terraform's
	if err != nil {
		b, _ = json.Marshal(map[string]any{"@level": "error", "@message": err.Error(), "@module": Module, "type": "log"})
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.w.Write(append(b, '\n'))
}

// Diagnostic writes an error or a warning without a source range, in the
// shape of Terraform's views/json.Diagnostic.
func (v *JSONView) Diagnostic(severity Severity, summary, detail string) {
	level, prefix := "error", "Error: "
	if severity == Warning {
		level, prefix = "warn", "Warning: "
	}
	d := map[string]any{"severity": string(severity), "summary": summary, "detail": detail}
	v.Write(level, prefix+summary, "diagnostic", map[string]any{"diagnostic": d})
}

// Log writes a note that has no message type of its own (an agent started
// in the background, a lock being waited for), as Terraform's "log" type.
func (v *JSONView) Log(message string) {
	v.Write("info", message, "log", nil)
}

// TextWriter is an io.Writer for code that prints its messages as text,
// in Terraform's human form: each write of "Error: summary\n\ndetail"
// (or "Warning: ...") becomes a diagnostic, any other text a log message.
// With -json a command's error stream is this, so that every message it
// prints, from whichever layer, is machine-readable.
func (v *JSONView) TextWriter() io.Writer { return textWriter{v} }

type textWriter struct{ v *JSONView }

func (t textWriter) Write(p []byte) (int, error) {
	text := strings.Trim(string(p), "\n")
	if text == "" {
		return len(p), nil
	}
	for _, msg := range splitMessages(text) {
		t.v.text(msg)
	}
	return len(p), nil
}

// text writes one message given as text.
func (v *JSONView) text(msg string) {
	if d := textDiagnostic(msg); d != nil {
		severity := Error
		if d.Severity == hcl.DiagWarning {
			severity = Warning
		}
		v.Diagnostic(severity, d.Summary, d.Detail)
		return
	}
	v.Log(msg)
}

// TextDiagnostics reads text printed in Terraform's human form ("Error:
// summary", a blank line, the detail) as the diagnostics it says; text
// that is no diagnostic is an error's detail, so that no word is lost.
func TextDiagnostics(text string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, msg := range splitMessages(strings.Trim(text, "\n")) {
		if msg == "" {
			continue
		}
		d := textDiagnostic(msg)
		if d == nil {
			d = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: msg}
		}
		diags = append(diags, d)
	}
	return diags
}

// textDiagnostic is the diagnostic msg says, nil if it is none.
func textDiagnostic(msg string) *hcl.Diagnostic {
	for _, s := range []struct {
		prefix   string
		severity hcl.DiagnosticSeverity
	}{{"Error: ", hcl.DiagError}, {"Warning: ", hcl.DiagWarning}} {
		if rest, ok := strings.CutPrefix(msg, s.prefix); ok {
			summary, detail, _ := strings.Cut(rest, "\n")
			return &hcl.Diagnostic{Severity: s.severity, Summary: strings.TrimSpace(summary), Detail: strings.Trim(detail, "\n")}
		}
	}
	return nil
}

// splitMessages splits text written at once into its messages: each
// "Error: " or "Warning: " at the start of a line begins one.
func splitMessages(text string) []string {
	var msgs []string
	start := 0
	for i := 0; i < len(text); i++ {
		if i > start && text[i-1] == '\n' && (strings.HasPrefix(text[i:], "Error: ") || strings.HasPrefix(text[i:], "Warning: ")) {
			msgs = append(msgs, strings.Trim(text[start:i], "\n"))
			start = i
		}
	}
	return append(msgs, strings.Trim(text[start:], "\n"))
}
