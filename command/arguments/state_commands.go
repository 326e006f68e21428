package arguments

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/rdmaform/rdmaform/config/addrs"
)

// Show is the show command's options.
type Show struct {
	View View // JSON, NoColor
	// Path is the state or plan file to show; HasPath is false for the
	// current state.
	Path    string
	HasPath bool
	Help    bool
}

// ParseShow parses show's command line. Options may also follow the file
// ("show tfplan -no-color"), as Terraform's show takes -no-color anywhere.
func ParseShow(args []string) (*Show, Diagnostics) {
	sh := &Show{}
	fs := newFlagSet("show")
	fs.BoolVar(&sh.View.JSON, "json", false, "")
	fs.BoolVar(&sh.View.NoColor, "no-color", false, "")
	paths, help, diags := parseInterspersed(fs, "show", args)
	if help {
		return &Show{Help: true}, nil
	}
	parsed := len(diags) == 0
	switch {
	case !parsed || len(paths) == 0:
	case len(paths) == 1:
		sh.Path, sh.HasPath = paths[0], true
	default:
		diags = diags.Append(errDiag("show takes at most one argument: a state file or a saved plan file",
			fmt.Sprintf("Got %d: %q.", len(paths), paths)))
	}
	return sh, diags
}

// Output is the output command's options.
type Output struct {
	View View   // JSON
	Raw  bool   // -raw
	Name string // the output to show; "" for all
	Help bool
}

// ParseOutput parses output's command line.
func ParseOutput(args []string) (*Output, Diagnostics) {
	o := &Output{}
	fs := newFlagSet("output")
	fs.BoolVar(&o.View.JSON, "json", false, "")
	fs.BoolVar(&o.Raw, "raw", false, "")
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "output", args)
	if help {
		return &Output{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 1 {
		diags = diags.Append(errDiag("Unexpected argument", "The output command expects exactly one argument with the name of an output\nvariable or no arguments to show all outputs."))
	}
	if parsed && o.Raw && (o.View.JSON || fs.NArg() == 0) {
		diags = diags.Append(errDiag("-raw needs the name of one output, and cannot be used with -json", ""))
	}
	o.Name = fs.Arg(0)
	return o, diags
}

// Taint is the options of taint and untaint.
type Taint struct {
	State        State
	AllowMissing bool // -allow-missing
	Addr         addrs.Instance
	Help         bool
}

// ParseTaint parses taint's command line.
func ParseTaint(args []string) (*Taint, Diagnostics) { return parseTaint("taint", args) }

// ParseUntaint parses untaint's command line.
func ParseUntaint(args []string) (*Taint, Diagnostics) { return parseTaint("untaint", args) }

func parseTaint(name string, args []string) (*Taint, Diagnostics) {
	t := &Taint{}
	fs := newFlagSet(name)
	acceptNoColor(fs)
	t.State.register(fs)
	fs.BoolVar(&t.AllowMissing, "allow-missing", false, "")
	help, diags := parseFlags(fs, name, args)
	if help {
		return &Taint{Help: true}, nil
	}
	if len(diags) > 0 {
		return t, diags
	}
	if fs.NArg() != 1 {
		return t, diags.Append(errDiag(name+" takes exactly one address, such as endpoint.client[0]", ""))
	}
	addr, err := addrs.ParseInstance(fs.Arg(0))
	if err != nil {
		return t, diags.Append(errDiag("Invalid address", err.Error()))
	}
	t.Addr = addr
	return t, diags
}

// ForceUnlock is the force-unlock command's options.
type ForceUnlock struct {
	Force  bool   // -force: do not ask
	LockID string // the lock to remove
	Help   bool
}

// ParseForceUnlock parses force-unlock's command line.
func ParseForceUnlock(args []string) (*ForceUnlock, Diagnostics) {
	f := &ForceUnlock{}
	fs := newFlagSet("force-unlock")
	fs.BoolVar(&f.Force, "force", false, "")
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "force-unlock", args)
	if help {
		return &ForceUnlock{Help: true}, nil
	}
	if len(diags) > 0 {
		return f, diags
	}
	if fs.NArg() != 1 {
		return f, diags.Append(errDiag("Expected a single argument: LOCK_ID", "Usage: rdmaform [global options] force-unlock [-force] LOCK_ID"))
	}
	f.LockID = fs.Arg(0)
	return f, diags
}

// Import is the import command's options.
type Import struct {
	State State
	Vars  Vars
	View  View           // NoColor
	Addr  addrs.Instance // the object to adopt
	// ID is the agent's name for the object; "" for the name this
	// configuration would give it.
	ID   string
	Help bool
}

// ParseImport parses import's command line.
func ParseImport(args []string) (*Import, Diagnostics) {
	im := &Import{}
	fs := newFlagSet("import")
	im.Vars.register(fs)
	fs.BoolVar(&im.View.NoColor, "no-color", false, "")
	fs.Bool("input", true, "") // import asks nothing
	im.State.register(fs)
	help, diags := parseFlags(fs, "import", args)
	if help {
		return &Import{Help: true}, nil
	}
	if len(diags) > 0 {
		return im, diags
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return im, diags.Append(errDiagHelp("import takes an address and, optionally, the agent's name for the object"))
	}
	addr, err := addrs.ParseInstance(fs.Arg(0))
	if err != nil {
		return im, diags.Append(errDiag("Invalid address", err.Error()))
	}
	im.Addr, im.ID = addr, fs.Arg(1)
	return im, diags
}

// Agent is the agent command's options.
type Agent struct {
	Socket  string // -socket
	LogFile string // -log
	// Listen (-listen) serves the API over TCP too, with mutual TLS only:
	// TLSCert and TLSKey (-tls-cert, -tls-key) are the agent's, and
	// TLSClientCA (-tls-client-ca) the CA clients' certificates chain to;
	// AllowNames (each -tls-allow-name) narrows them to those names.
	Listen, TLSCert, TLSKey, TLSClientCA string
	AllowNames                           []string
	// Metrics (-metrics) serves Prometheus' /metrics on HOST:PORT, over
	// the same mutual TLS when the TLS files are given;
	// MetricsPerObject (-metrics-per-object) adds an object label.
	Metrics          string
	MetricsPerObject bool
	// LogFormat (-log-format) is stderr's: text or json; LogLevel
	// (-log-level) the first level (agent log-level changes it).
	LogFormat, LogLevel string
	Help                bool
}

// ParseAgent parses the command line of agent (not agent stop or status).
func ParseAgent(args []string) (*Agent, Diagnostics) {
	a := &Agent{}
	fs := newFlagSet("agent")
	fs.StringVar(&a.Socket, "socket", "", "")
	fs.StringVar(&a.LogFile, "log", "", "")
	fs.StringVar(&a.Listen, "listen", "", "")
	fs.StringVar(&a.TLSCert, "tls-cert", "", "")
	fs.StringVar(&a.TLSKey, "tls-key", "", "")
	fs.StringVar(&a.TLSClientCA, "tls-client-ca", "", "")
	fs.Var((*stringsFlag)(&a.AllowNames), "tls-allow-name", "")
	fs.StringVar(&a.Metrics, "metrics", "", "")
	fs.BoolVar(&a.MetricsPerObject, "metrics-per-object", false, "")
	fs.StringVar(&a.LogFormat, "log-format", "", "")
	fs.StringVar(&a.LogLevel, "log-level", "", "")
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "agent", args)
	if help {
		return &Agent{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiagHelp(fmt.Sprintf("agent takes no arguments, got %q", fs.Args())))
	}
	if parsed {
		diags = append(diags, a.checkTLS()...)
		diags = append(diags, a.checkObservability()...)
	}
	return a, diags
}

// checkObservability checks -metrics, -log-format and -log-level.
func (a *Agent) checkObservability() Diagnostics {
	var diags Diagnostics
	if a.Metrics != "" {
		if _, _, err := net.SplitHostPort(a.Metrics); err != nil {
			diags = diags.Append(errDiag("Invalid -metrics address",
				fmt.Sprintf("-metrics=%s is not HOST:PORT, such as -metrics=127.0.0.1:9477 (or :9477 for every address): %v", a.Metrics, err)))
		}
	}
	if a.MetricsPerObject && a.Metrics == "" {
		diags = diags.Append(errDiag("-metrics-per-object without -metrics", "It adds an object label to the metrics -metrics=HOST:PORT serves."))
	}
	if a.LogFormat != "" && a.LogFormat != "text" && a.LogFormat != "json" {
		diags = diags.Append(errDiag("Invalid -log-format", fmt.Sprintf("-log-format=%s: use text or json.", a.LogFormat)))
	}
	if a.LogLevel != "" && !slices.Contains([]string{"trace", "debug", "info", "warn", "error"}, strings.ToLower(a.LogLevel)) {
		diags = diags.Append(errDiag("Invalid -log-level", fmt.Sprintf("-log-level=%s: use trace, debug, info, warn or error.", a.LogLevel)))
	}
	return diags
}

// checkTLS refuses -listen without its three files (there is no
// plaintext TCP), and TLS options without -listen.
func (a *Agent) checkTLS() Diagnostics {
	var diags Diagnostics
	files := map[string]string{"-tls-cert": a.TLSCert, "-tls-key": a.TLSKey, "-tls-client-ca": a.TLSClientCA}
	if a.Listen == "" && a.Metrics != "" && (a.TLSCert != "" || a.TLSKey != "" || a.TLSClientCA != "") {
		// /metrics over mutual TLS, without the API over TCP.
		return missingTLSFiles(files, "-metrics with TLS settings",
			"The agent serves /metrics over mutual TLS when it has TLS settings: give its certificate and key with -tls-cert and -tls-key, and the CA that signs the scrapers' certificates with -tls-client-ca.")
	}
	if a.Listen == "" {
		var given []string
		for _, f := range []string{"-tls-cert", "-tls-key", "-tls-client-ca"} {
			if files[f] != "" {
				given = append(given, f)
			}
		}
		if len(a.AllowNames) > 0 {
			given = append(given, "-tls-allow-name")
		}
		if len(given) > 0 {
			diags = diags.Append(errDiag(strings.Join(given, ", ")+" without -listen",
				"The TLS options are for the TCP address -listen=HOST:PORT serves; without it the agent serves its unix socket only."))
		}
		return diags
	}
	if _, _, err := net.SplitHostPort(a.Listen); err != nil {
		diags = diags.Append(errDiag("Invalid -listen address",
			fmt.Sprintf("-listen=%s is not HOST:PORT, such as -listen=10.77.1.1:7470 (or :7470 for every address): %v", a.Listen, err)))
	}
	return append(diags, missingTLSFiles(files, "-listen",
		"The agent serves TCP over mutual TLS only (there is no plaintext mode: the API carries private data, and over TCP a certificate is the only proof of who the client is). Give its certificate and key with -tls-cert and -tls-key, and the CA that signs the clients' certificates with -tls-client-ca; docs/agent.md says how to make them.")...)
}

// missingTLSFiles says which of the three TLS files what needs are not
// given.
func missingTLSFiles(files map[string]string, what, detail string) Diagnostics {
	var missing []string
	for _, f := range []string{"-tls-cert", "-tls-key", "-tls-client-ca"} {
		if files[f] == "" {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return Diagnostics{errDiag(what+" needs "+strings.Join(missing, ", "), detail)}
}

// AgentClient is the options of agent stop and agent status.
type AgentClient struct {
	Socket string // -socket
	// Address (-address, agent status only) reaches a remote agent over
	// mutual TLS instead of the socket: TLSCA (-tls-ca) is the CA its
	// certificate chains to, TLSCert and TLSKey (-tls-cert, -tls-key)
	// ours, and TLSServerName (-tls-server-name) the name its certificate
	// must hold ("" for the address's host).
	Address, TLSCA, TLSCert, TLSKey, TLSServerName string
	// Level is agent log-level's LEVEL.
	Level string
	// Force (-force, agent stop only) stops an agent holding objects
	// without asking.
	Force bool
	Help  bool
}

// ParseAgentClient parses the command line of agent VERB (stop, status,
// log-level LEVEL).
func ParseAgentClient(verb string, args []string) (*AgentClient, Diagnostics) {
	a := &AgentClient{}
	fs := newFlagSet("agent " + verb)
	fs.StringVar(&a.Socket, "socket", "", "")
	if verb == "stop" {
		fs.BoolVar(&a.Force, "force", false, "")
	}
	if verb == "status" || verb == "log-level" {
		fs.StringVar(&a.Address, "address", "", "")
		fs.StringVar(&a.TLSCA, "tls-ca", "", "")
		fs.StringVar(&a.TLSCert, "tls-cert", "", "")
		fs.StringVar(&a.TLSKey, "tls-key", "", "")
		fs.StringVar(&a.TLSServerName, "tls-server-name", "", "")
	}
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "agent "+verb, args)
	if help {
		return &AgentClient{Help: true}, nil
	}
	if verb == "log-level" && len(diags) == 0 {
		a.Level = strings.ToLower(fs.Arg(0))
		switch {
		case fs.NArg() != 1:
			diags = diags.Append(errDiagHelp(fmt.Sprintf("agent log-level takes one level after its options (trace, debug, info, warn or error), got %q", fs.Args())))
		case !slices.Contains([]string{"trace", "debug", "info", "warn", "error"}, a.Level):
			diags = diags.Append(errDiag("Invalid log level", fmt.Sprintf("%q: use trace, debug, info, warn or error.", fs.Arg(0))))
		}
	}
	if len(diags) == 0 {
		diags = append(diags, a.checkRemote()...)
	}
	return a, diags
}

// checkRemote wants -address with its three files, and without -socket.
func (a *AgentClient) checkRemote() Diagnostics {
	var diags Diagnostics
	if a.Address == "" {
		if a.TLSCA != "" || a.TLSCert != "" || a.TLSKey != "" || a.TLSServerName != "" {
			diags = diags.Append(errDiag("TLS options without -address",
				"-tls-ca, -tls-cert, -tls-key and -tls-server-name are for a remote agent named by -address=HOST:PORT."))
		}
		return diags
	}
	if a.Socket != "" {
		diags = diags.Append(errDiag("-socket and -address both given", "Give -socket for the local agent, or -address for a remote one."))
	}
	if _, _, err := net.SplitHostPort(a.Address); err != nil {
		diags = diags.Append(errDiag("Invalid -address", fmt.Sprintf("-address=%s is not HOST:PORT, such as -address=10.77.1.1:7470: %v", a.Address, err)))
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"-tls-ca", a.TLSCA}, {"-tls-cert", a.TLSCert}, {"-tls-key", a.TLSKey}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		diags = diags.Append(errDiag("-address needs "+strings.Join(missing, ", "),
			"A remote agent is reached over mutual TLS only: give the CA its certificate chains to (-tls-ca), and our certificate and key (-tls-cert, -tls-key)."))
	}
	return diags
}

// Init is the init command's options.
type Init struct {
	State        State
	MigrateState bool // -migrate-state
	ForceCopy    bool // -force-copy
	Reconfigure  bool // -reconfigure
	// Backend: false for -backend=false, which sets nothing up.
	Backend bool
	// BackendConfig is each -backend-config: a file or key=value.
	BackendConfig []string
	Help          bool
}

// ParseInit parses init's command line.
func ParseInit(args []string) (*Init, Diagnostics) {
	in := &Init{}
	fs := newFlagSet("init")
	in.State.register(fs)
	fs.BoolVar(&in.MigrateState, "migrate-state", false, "")
	fs.BoolVar(&in.ForceCopy, "force-copy", false, "")
	fs.BoolVar(&in.Reconfigure, "reconfigure", false, "")
	acceptNoColor(fs)
	fs.Bool("input", true, "")    // init asks nothing
	fs.Bool("upgrade", false, "") // there are no providers or modules to upgrade
	fs.BoolVar(&in.Backend, "backend", true, "")
	fs.Var((*stringsFlag)(&in.BackendConfig), "backend-config", "")
	help, diags := parseFlags(fs, "init", args)
	if help {
		return &Init{Help: true}, nil
	}
	if len(diags) == 0 && fs.NArg() > 0 {
		diags = diags.Append(errDiag("init takes no arguments; use -chdir=DIR to initialise another directory", ""))
	}
	if in.MigrateState && in.Reconfigure {
		diags = diags.Append(errDiag("-migrate-state and -reconfigure are mutually exclusive", ""))
	}
	return in, diags
}
