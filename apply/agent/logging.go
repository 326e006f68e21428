package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// teeHandler sends every record to several handlers: the agent logs JSON
// to its file and text to stderr.
type teeHandler []slog.Handler

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithGroup(name)
	}
	return out
}

// LevelTrace is below debug, for the most detailed lines (slog has no
// trace level of its own); rdmaform's CLI uses it too.
const LevelTrace = slog.LevelDebug - 4

// levelNames are the log levels' names, as RDMAFORM_LOG and
// "rdmaform agent log-level" take them.
var levelNames = []struct {
	name  string
	level slog.Level
}{{"trace", LevelTrace}, {"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}}

// ParseLevel reads a level's name (trace, debug, info, warn, error; any
// case).
func ParseLevel(s string) (slog.Level, error) {
	for _, n := range levelNames {
		if strings.EqualFold(strings.TrimSpace(s), n.name) {
			return n.level, nil
		}
	}
	return 0, fmt.Errorf("unknown log level %q: use trace, debug, info, warn or error", s)
}

// LevelName is the name ParseLevel reads for l, the next one up for a
// level between two.
func LevelName(l slog.Level) string {
	for _, n := range levelNames {
		if l <= n.level {
			return n.name
		}
	}
	return "error"
}

// ReplaceLevel names LevelTrace "TRACE" in log lines rather than slog's
// "DEBUG-4" (a slog.HandlerOptions.ReplaceAttr).
func ReplaceLevel(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.LevelKey && len(groups) == 0 {
		if l, ok := a.Value.Any().(slog.Level); ok && l <= LevelTrace {
			a.Value = slog.StringValue("TRACE")
		}
	}
	return a
}

// newLogger is the agent's logger: JSON lines to its file, and text (or
// JSON, with -log-format=json) to stderr, both at level, which
// SetLogLevel changes while the agent runs.
func newLogger(file, stderr io.Writer, jsonStderr bool, level *slog.LevelVar) *slog.Logger {
	o := &slog.HandlerOptions{Level: level, ReplaceAttr: ReplaceLevel}
	var errh slog.Handler = slog.NewTextHandler(stderr, o)
	if jsonStderr {
		errh = slog.NewJSONHandler(stderr, o)
	}
	return slog.New(teeHandler{slog.NewJSONHandler(file, o), errh})
}
