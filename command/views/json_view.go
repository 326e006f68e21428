package views

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
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

// Diagnostic writes one error or warning without a source range.
func (v *JSONView) Diagnostic(severity Severity, summary, detail string) {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
	if severity == Warning {
		d.Severity = hcl.DiagWarning
	}
	v.Diagnostics(hcl.Diagnostics{d}, nil)
}

// Log writes a note that has no message type of its own (an agent started
// in the background, a lock being waited for), as Terraform's "log" type.
func (v *JSONView) Log(message string) {
	v.Write("info", message, "log", nil)
}

// LogWriter is an io.Writer whose text becomes log lines, one a write
// (blank lines dropped). It stays for the notes written as text by code
// that takes an io.Writer and knows no view: the state package's
// "Acquiring state lock" notes while a lock is waited for, and the
// agent client's "started an agent" note. Errors and warnings never go
// through it: they are Diagnostics.
func (v *JSONView) LogWriter() io.Writer { return logWriter{v} }

type logWriter struct{ v *JSONView }

func (t logWriter) Write(p []byte) (int, error) {
	if text := strings.Trim(string(p), "\n"); text != "" {
		t.v.Log(text)
	}
	return len(p), nil
}
