package command

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

func init() {
	register(command{Name: "agent", Synopsis: "Run the agent that holds the endpoints (or: agent stop, agent status)", Run: runAgent, Subcommands: true})
}

const agentUsage = `Usage: rdmaform agent [options]
       rdmaform agent stop [-socket=PATH]
       rdmaform agent status [-socket=PATH | -address=HOST:PORT -tls-ca=FILE ...]
       rdmaform agent log-level [-socket=PATH | -address=...] LEVEL

  The agent holds protection domains, listeners and endpoints (an RDMA CM id
  dies with the process that made it) and serves rdmaform's other commands
  on a unix socket. It runs in the foreground; plan, apply and monitor start
  one in the background when none answers. SIGTERM or "agent stop"
  disconnects everything and exits.

Options:
` + agentSocketOption + `  -log=FILE     The JSON log (default: agent.log beside the socket); a text
                log also goes to stderr.
  -log-format=text|json  Stderr's log format (default text; the file is JSON).
  -log-level=LEVEL       trace, debug, info (default), warn or error; change
                         it while the agent runs with "agent log-level".

  -metrics=HOST:PORT    Serve Prometheus metrics at http://HOST:PORT/metrics
                        (off by default); over the same mutual TLS as
                        -listen when the -tls-* files are given.
  -metrics-per-object   Add an object label to the per-endpoint counters:
                        one series per endpoint, for small fabrics.
                        docs/observability.md lists the metrics.

  -listen=HOST:PORT     Serve the same API over TCP too, with mutual TLS only
                        (TLS 1.3; there is no plaintext TCP). Needs:
  -tls-cert=FILE        The agent's certificate (PEM), with the address
                        clients dial in its subject alternative names.
  -tls-key=FILE         Its key.
  -tls-client-ca=FILE   The CA clients' certificates must be signed by.
  -tls-allow-name=NAME  Serve only clients whose certificate holds NAME as
                        its CN or a DNS name (repeat for several).
                        docs/agent.md says how to make these files.
`

const agentLogLevelHelp = `Usage: rdmaform agent log-level [options] LEVEL

  Changes the level of the agent's logs (its file and stderr) at once,
  without a restart: trace, debug, info, warn or error. At debug the agent
  logs every status change of every object. It prints the level before.

Options:
` + agentSocketOption + `
  -address=HOST:PORT      Change the level of the agent serving -listen on
                          another host, over mutual TLS (with -tls-ca,
                          -tls-cert, -tls-key, -tls-server-name as for
                          agent status).
`

// agentSocketOption is how agent, agent stop and agent status find the
// agent.
const agentSocketOption = `  -socket=PATH  The socket (default: the rdmaform { agent { socket } } setting
                of the configuration here, else /run/rdmaform/agent.sock for
                root, $XDG_RUNTIME_DIR/rdmaform/agent.sock otherwise).
`

const agentStopHelp = `Usage: rdmaform agent stop [options]

  Asks the agent to stop: it disconnects and destroys every object it
  holds, of every configuration that uses it, and exits. An agent holding
  objects first says how many, of how many namespaces, with how many live
  connections, and asks for "yes" (without a terminal it refuses: give
  -force). The states still record those objects: the next plan shows
  them deleted outside rdmaform and creates them again. To remove one
  configuration's objects, run "rdmaform destroy" in its directory
  instead. When no agent runs, there is nothing to do and no error.

Options:
` + agentSocketOption + `  -force       Stop without asking, whatever the agent holds.
`

const agentStatusHelp = `Usage: rdmaform agent status [options]

  Prints the agent's pid, socket, log, version and uptime, its TCP address,
  certificate and expiry when it serves -listen, and how many objects it
  holds, by kind and status. "rdmaform status" lists the
  objects themselves.

Options:
` + agentSocketOption + `
  -address=HOST:PORT      Ask the agent serving -listen=HOST:PORT on another
                          host, over mutual TLS, instead of the socket. Needs:
  -tls-ca=FILE            The CA the agent's certificate must be signed by.
  -tls-cert=FILE          Our certificate (signed by the agent's client CA).
  -tls-key=FILE           Its key.
  -tls-server-name=NAME   The name the agent's certificate must hold (default:
                          the address's host).
`

func runAgent(args []string, s Meta) int {
	if len(args) > 0 && (args[0] == "stop" || args[0] == "status" || args[0] == "log-level") {
		return runAgentClient(args[0], args[1:], s)
	}
	a, diags := arguments.ParseAgent(args)
	if a.Help {
		fmt.Fprint(s.Err, agentUsage)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, agentUsage)
		return 1
	}
	socket, logFile := client.ChooseSocket(a.Socket, configuredAgentSocket()), a.LogFile
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	defer startCPUProfile("agent")()
	err := agent.Run(ctx, agent.Options{Socket: socket, LogFile: logFile, Version: Version, Stderr: s.Err,
		TLS:       agent.TLS{Listen: a.Listen, CertFile: a.TLSCert, KeyFile: a.TLSKey, ClientCAFile: a.TLSClientCA, AllowNames: a.AllowNames},
		LogFormat: a.LogFormat, LogLevel: a.LogLevel, Metrics: a.Metrics, MetricsPerObject: a.MetricsPerObject})
	if err != nil {
		s.showError(fmt.Sprintf("agent: %v", err), "")
		// An agent started in the background has no terminal: its log
		// says why it stopped, for the client that started it.
		client.LogFatal(client.LogFileFor(socket, logFile), err, errors.Is(err, agent.ErrAgentRunning))
		return 1
	}
	return 0
}

func runAgentClient(verb string, args []string, s Meta) int {
	help := agentStatusHelp
	switch verb {
	case "stop":
		help = agentStopHelp
	case "log-level":
		help = agentLogLevelHelp
	}
	a, diags := arguments.ParseAgentClient(verb, args)
	if a.Help {
		fmt.Fprint(s.Err, help)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, help)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if a.Address != "" {
		if verb == "log-level" {
			return agentLogLevelRemote(ctx, a, s)
		}
		return agentStatusRemote(ctx, a, s)
	}
	socket := client.ChooseSocket(a.Socket, configuredAgentSocket())
	c, err := client.Dial(ctx, socket)
	if err != nil {
		if client.IsNotRunning(err) && verb == "stop" {
			fmt.Fprintf(s.Out, "No agent runs at %s.\n", socket)
			return 0
		}
		s.showErrorText(err.Error())
		return 1
	}
	defer c.Close()
	if verb == "log-level" {
		return setAgentLogLevel(ctx, c, a.Level, s)
	}
	info, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		s.showError(fmt.Sprintf("Asking the agent at %s who it is", socket), agentError(err).Error())
		return 1
	}
	if verb == "stop" {
		return stopAgent(ctx, c, info, a.Force, s)
	}
	return printAgentStatus(ctx, c, info, s)
}

// agentStatusRemote is agent status -address: the agent on another
// host, over mutual TLS.
func agentStatusRemote(ctx context.Context, a *arguments.AgentClient, s Meta) int {
	c, ok := dialAgentFlags(ctx, a, s)
	if !ok {
		return 1
	}
	defer c.Close()
	info, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		s.showError("Reading the agent's information at "+a.Address, agentError(err).Error())
		return 1
	}
	return printAgentStatus(ctx, c, info, s)
}

// agentLogLevelRemote is agent log-level -address: the agent on another
// host, over mutual TLS.
func agentLogLevelRemote(ctx context.Context, a *arguments.AgentClient, s Meta) int {
	c, ok := dialAgentFlags(ctx, a, s)
	if !ok {
		return 1
	}
	defer c.Close()
	return setAgentLogLevel(ctx, c, a.Level, s)
}

// dialAgentFlags reaches the agent the -address and -tls-* flags name,
// saying why when it cannot.
func dialAgentFlags(ctx context.Context, a *arguments.AgentClient, s Meta) (*client.Client, bool) {
	dctx, cancel := context.WithTimeout(ctx, client.DefaultRemoteTimeout)
	defer cancel()
	c, err := client.DialRemote(dctx, client.Remote{Address: a.Address, CAFile: a.TLSCA, CertFile: a.TLSCert, KeyFile: a.TLSKey, ServerName: a.TLSServerName})
	if err != nil {
		s.showErrorText(err.Error())
		return nil, false
	}
	return c, true
}

// setAgentLogLevel changes the agent's log level and says from what.
func setAgentLogLevel(ctx context.Context, c *client.Client, level string, s Meta) int {
	resp, err := c.SetLogLevel(ctx, &pb.SetLogLevelRequest{Level: level})
	if err != nil {
		s.showErrorText("agent log-level: " + agentError(err).Error())
		return 1
	}
	fmt.Fprintf(s.Out, "The agent logs at %s now (it logged at %s).\n", level, termsafe.String(resp.Previous))
	return 0
}

// printAgentStatus prints who the agent is and what it holds.
func printAgentStatus(ctx context.Context, c *client.Client, info *pb.InfoResponse, s Meta) int {
	list, err := c.List(ctx, &pb.ListRequest{})
	if err != nil {
		where := c.Socket
		if where == "" {
			where = c.Address
		}
		s.showError(fmt.Sprintf("Listing the objects of the agent at %s", where), agentError(err).Error())
		return 1
	}
	started := time.Unix(0, info.StartedAt)
	fmt.Fprintf(s.Out, "Agent: pid %d, socket %s, log %s, version %s, up %v\n",
		info.Pid, termsafe.String(info.Socket), termsafe.String(info.LogFile), termsafe.String(info.Version), time.Since(started).Round(time.Second))
	if info.Listen != "" {
		fmt.Fprintf(s.Out, "TCP: serving %s over mutual TLS as %s, %s\n",
			termsafe.String(info.Listen), termsafe.String(info.CertificateSubject), expiryWords(time.Unix(0, info.CertificateNotAfter), time.Now()))
	}
	if info.Metrics != "" {
		scheme := "http"
		if info.MetricsTls {
			scheme = "https (mutual TLS)"
		}
		fmt.Fprintf(s.Out, "Metrics: %s at %s/metrics\n", scheme, termsafe.String(info.Metrics))
	}
	if info.LogLevel != "" {
		fmt.Fprintf(s.Out, "Log level: %s\n", termsafe.String(info.LogLevel))
	}
	counts := map[string]int{}
	for _, o := range list.Objects {
		counts[fmt.Sprintf("%-17s %s", kindWord(o.Kind), statusWord(o.Status))]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(s.Out, "Objects: %d\n", len(list.Objects))
	for _, k := range keys {
		fmt.Fprintf(s.Out, "  %s %d\n", k, counts[k])
	}
	return 0
}

// expiryWords says when a certificate expires, and in how many days.
func expiryWords(notAfter, now time.Time) string {
	day := notAfter.UTC().Format(time.DateOnly)
	days := int(notAfter.Sub(now).Hours() / 24)
	switch {
	case notAfter.Before(now):
		return fmt.Sprintf("certificate EXPIRED %s (%d days ago)", day, -days)
	case days == 1:
		return fmt.Sprintf("certificate expires %s (1 day)", day)
	}
	return fmt.Sprintf("certificate expires %s (%d days)", day, days)
}

func kindWord(k pb.Kind) string      { return agent.KindWord(k) }
func statusWord(st pb.Status) string { return agent.StatusWord(st) }
