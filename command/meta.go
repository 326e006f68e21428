package command

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/config"
)

// Meta is what every command shares, as in Terraform's internal/command:
// the standard streams and the seams tests set. A Meta with only its
// streams set is the real program's; tests set the seams on their own
// Meta rather than on package variables, so that they can run in parallel.
type Meta struct {
	In       io.Reader
	Out, Err io.Writer

	// Connect reaches the agent (nil: the agent's client, which starts an
	// agent when none answers); tests give a fake fabric.
	Connect connectFunc
	// ConnectRemote reaches the agent of an agent block (nil: over mutual
	// TLS, client.DialRemote); tests give fake fabrics.
	ConnectRemote remoteConnectFunc
	// configHook, when set, sees the configuration as loaded: tests put
	// objects on agents with it.
	configHook func(*config.Config)
	// NoAgent makes plan, apply and destroy act as in a build without the
	// agent: those that need the live fabric say so.
	NoAgent bool
	// Devices gives validate -device-check the live devices (nil: this
	// host's, through the rdmacm binding).
	Devices func() (config.DeviceLimits, error)
	// StdinTerminal and StdoutTerminal say whether In and Out are
	// terminals (nil: ask the operating system).
	StdinTerminal  func(io.Reader) bool
	StdoutTerminal func(io.Writer) bool
	// Exit ends the process on a second interrupt (nil: os.Exit).
	Exit func(code int)

	// jsonView is the machine-readable UI of a command run with -json
	// (withJSON), nil otherwise.
	jsonView *views.JSONView
	// diags shows the command's errors and warnings when they are not
	// the human text on Err (nil): the JSON UI's diagnostics (withJSON,
	// withJSONErrors), or validate -json's document. Chosen once, before
	// the command parses its flags.
	diags func(hcl.Diagnostics, *config.Loader)

	// log is the CLI's log (RDMAFORM_LOG; run opens it): nil discards.
	log *slog.Logger

	// startDir is the directory rdmaform was started in when -chdir left
	// it ("" otherwise): path.cwd in expressions, as Terraform's. run sets
	// it.
	startDir string
}

// connectFunc reaches the agent at socket (the configured one, or "" for
// the default). When none answers it starts one if mayStart (nil: always)
// says so; notify receives one line if an agent had to be started.
type connectFunc func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error)

// connector is how the commands reach the agent; nil with NoAgent, when
// commands that need the live fabric say it is not available.
func (m Meta) connector() connectFunc {
	connect := connectAgent
	switch {
	case m.NoAgent:
		return nil
	case m.Connect != nil:
		connect = m.Connect
	}
	log := m.logger()
	return func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
		start := time.Now()
		log.Debug("connecting to the agent", "socket", socket)
		fc, err := connect(ctx, socket, notify, mayStart)
		took := time.Since(start).Round(time.Millisecond).String()
		if err != nil {
			log.Debug("no agent", "socket", socket, "took", took, "err", err.Error())
			return nil, err
		}
		log.Debug("connected to the agent", "socket", socket, "took", took)
		return fc, nil
	}
}

// logger is the CLI's log (a discarding one when none is open).
func (m Meta) logger() *slog.Logger {
	if m.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.log
}

// devices returns the live devices for validate -device-check.
func (m Meta) devices() (config.DeviceLimits, error) {
	if m.Devices != nil {
		return m.Devices()
	}
	return hostDevices()
}

// stdinIsTerminal reports whether In is an interactive terminal, where a
// confirmation or a variable's value can be asked.
func (m Meta) stdinIsTerminal() bool {
	if m.StdinTerminal != nil {
		return m.StdinTerminal(m.In)
	}
	f, ok := m.In.(*os.File)
	return ok && isTerminal(f)
}

// stdoutIsTerminal reports whether Out is a terminal the monitor can draw
// on.
func (m Meta) stdoutIsTerminal() bool {
	if m.StdoutTerminal != nil {
		return m.StdoutTerminal(m.Out)
	}
	f, ok := m.Out.(*os.File)
	return ok && isTerminal(f)
}

// exit ends the process on a second interrupt.
func (m Meta) exit(code int) {
	if m.Exit != nil {
		m.Exit(code)
		return
	}
	os.Exit(code)
}

// Diagnostics shows the command's errors and warnings in the form chosen
// for it (Terraform's View.Diagnostics): as text on Err, or with -json as
// the machine-readable UI's diagnostics. Every error a command reports
// goes through it.
func (m Meta) Diagnostics(diags hcl.Diagnostics) { m.configDiagnostics(diags, nil, 0) }

// configDiagnostics is Diagnostics for diagnostics of the configuration l
// read, which quote its source; as text, their details wrap at width (0:
// they do not).
func (m Meta) configDiagnostics(diags hcl.Diagnostics, l *config.Loader, width uint) {
	if m.diags != nil {
		m.diags(diags, l)
		return
	}
	(&views.View{Out: m.Out, Err: m.Err, Width: width}).Diagnostics(diags, l)
}

// showErrorText reports an error whose text holds its summary and detail
// as the human form shows them: the first paragraph is the summary.
func (m Meta) showErrorText(text string) {
	summary, detail, _ := strings.Cut(text, "\n\n")
	m.showError(summary, detail)
}

// showError reports one error without a source: its summary and, when
// not empty, its detail.
func (m Meta) showError(summary, detail string) {
	m.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail}})
}

// showWarning reports one warning without a source.
func (m Meta) showWarning(summary, detail string) {
	m.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: summary, Detail: detail}})
}

// withJSON is m for a command whose args ask for -json (views.WantsJSON):
// its output is Terraform's machine-readable UI on Out, its errors and
// warnings that UI's diagnostics (a bad flag, a backend or agent error),
// and the notes lower layers print as text on Err (an agent started, a
// lock waited for) its log lines, so that every line it prints is JSON.
// It is chosen before the flags are parsed, so that their errors are
// JSON too.
func (m Meta) withJSON(args []string) Meta {
	if m.jsonView != nil || !views.WantsJSON(args) {
		return m
	}
	m.jsonView = views.NewJSONView(m.Out)
	m.diags = m.jsonView.Diagnostics
	m.Err = m.jsonView.LogWriter()
	return m
}

// withJSONErrors is m for a command whose -json output is one document
// (status, show, output, version): its diagnostics and notes are lines of
// the machine-readable UI on Err, so that standard output holds only the
// document and every message is JSON.
func (m Meta) withJSONErrors(args []string) Meta {
	if views.WantsJSON(args) {
		v := views.NewJSONView(m.Err)
		m.diags = v.Diagnostics
		m.Err = v.LogWriter()
	}
	return m
}
