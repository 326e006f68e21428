package command

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/rdmaform/rdmaform/apply/agent"
)

// The CLI's own log, as Terraform's TF_LOG and TF_LOG_PATH:
//
//	RDMAFORM_LOG=trace|debug|info|warn|error  text lines at that level
//	RDMAFORM_LOG=json                         JSON lines at trace level
//	RDMAFORM_LOG_PATH=FILE                    append them to FILE, not stderr
//
// The log never goes to standard output, so it never mixes into -json
// output. It holds no secret: variable values and -backend-config values
// are left out of the command line it logs (see redactArgs).
const (
	logEnv     = "RDMAFORM_LOG"
	logPathEnv = "RDMAFORM_LOG_PATH"
)

// openCLILog makes the logger RDMAFORM_LOG asks for, writing to stderr or
// RDMAFORM_LOG_PATH, and how to close it. Without RDMAFORM_LOG it
// discards everything.
func openCLILog(stderr io.Writer) (*slog.Logger, func(), error) {
	v := strings.TrimSpace(os.Getenv(logEnv))
	if v == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	w, closeLog := stderr, func() {}
	if path := os.Getenv(logPathEnv); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open the log file %s (%s): %v", path, logPathEnv, err)
		}
		w, closeLog = f, func() { f.Close() }
	}
	level, unknown := agent.LevelTrace, false
	if !strings.EqualFold(v, "json") {
		l, err := agent.ParseLevel(v)
		level, unknown = l, err != nil
		if unknown {
			level = agent.LevelTrace // as Terraform does with a TF_LOG it does not know
		}
	}
	o := &slog.HandlerOptions{Level: level, ReplaceAttr: agent.ReplaceLevel}
	var h slog.Handler = slog.NewTextHandler(w, o)
	if strings.EqualFold(v, "json") {
		h = slog.NewJSONHandler(w, o)
	}
	log := slog.New(h)
	if unknown {
		log.Warn("unknown "+logEnv+" level: logging at trace; use trace, debug, info, warn, error or json", "value", v)
	}
	return log, closeLog, nil
}

// secretOptions are the options whose values may be secrets: a variable's
// value (sensitive or not, the command line cannot tell) and a backend
// setting (an etcd password).
var secretOptions = []string{"var", "backend-config"}

// redactArgs is args with the values of secretOptions replaced, for the
// log: "-var=token=s3cret" becomes "-var=token=(redacted)", a
// "-backend-config=password=x" "-backend-config=password=(redacted)"; a
// file name given to -backend-config stays.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	redactNext := false
	for i, a := range args {
		if redactNext {
			out[i], redactNext = redactValue(a), false
			continue
		}
		out[i] = a
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !isSecretOption(name) {
			continue
		}
		if !hasValue {
			redactNext = true
			continue
		}
		out[i] = a[:len(a)-len(value)] + redactValue(value)
	}
	return out
}

func isSecretOption(name string) bool {
	for _, o := range secretOptions {
		if name == o {
			return true
		}
	}
	return false
}

// redactValue keeps a name=value option's name, or a file's name.
func redactValue(v string) string {
	if name, _, ok := strings.Cut(v, "="); ok {
		return name + "=(redacted)"
	}
	if strings.ContainsAny(v, "/.") {
		return v // a -backend-config file
	}
	return "(redacted)"
}
