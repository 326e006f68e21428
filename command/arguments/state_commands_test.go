package arguments

import (
	"reflect"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
)

func TestParseStateCommands(t *testing.T) {
	t.Parallel()
	client := mustAddr(t, "endpoint.client[0]")
	tests := []struct {
		name string
		args []string
		got  func([]string) (any, Diagnostics)
		want any
	}{
		{"show current state", nil, wrap(ParseShow), Show{}},
		{"show a file", []string{"-json", "-no-color", "p.tfplan"}, wrap(ParseShow), Show{View: View{JSON: true, NoColor: true}, Path: "p.tfplan", HasPath: true}},
		{"show help", []string{"-help"}, wrap(ParseShow), Show{Help: true}},
		// Terraform's show takes -no-color after the file too (its Meta
		// removes -no-color wherever it is); so do -json here.
		{"show a file, options after", []string{"p.tfplan", "-no-color", "-json"}, wrap(ParseShow), Show{View: View{JSON: true, NoColor: true}, Path: "p.tfplan", HasPath: true}},
		{"show a file named like an option", []string{"-no-color", "--", "-p.tfplan"}, wrap(ParseShow), Show{View: View{NoColor: true}, Path: "-p.tfplan", HasPath: true}},
		{"output all", []string{"-json", "-no-color"}, wrap(ParseOutput), Output{View: View{JSON: true}}},
		{"output raw", []string{"-raw", "addr"}, wrap(ParseOutput), Output{Raw: true, Name: "addr"}},
		{"taint", []string{"-allow-missing", "-lock=false", "-lock-timeout=2s", "endpoint.client[0]"}, wrap(ParseTaint),
			Taint{State: State{LockTimeout: 2 * time.Second}, AllowMissing: true, Addr: client}},
		{"untaint", []string{"--no-color", "endpoint.client[0]"}, wrap(ParseUntaint), Taint{State: State{Lock: true}, Addr: client}},
		{"force-unlock", []string{"-force", "1234"}, wrap(ParseForceUnlock), ForceUnlock{Force: true, LockID: "1234"}},
		{"import", []string{"-var=a=1", "-no-color", "-input=false", "endpoint.client[0]"}, wrap(ParseImport),
			Import{View: View{NoColor: true}, State: State{Lock: true}, Vars: Vars{Args: config.VarArgs{{Value: "a=1"}}}, Addr: client}},
		{"import with its name", []string{"endpoint.client[0]", "rdmaform.client.0"}, wrap(ParseImport),
			Import{State: State{Lock: true}, Addr: client, ID: "rdmaform.client.0"}},
		{"agent", []string{"-socket=/s", "-log", "/l", "-no-color"}, wrap(ParseAgent), Agent{Socket: "/s", LogFile: "/l"}},
		{"agent stop", []string{"-socket=/s"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("stop", a) }), AgentClient{Socket: "/s"}},
		{"agent stop -force", []string{"-force"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("stop", a) }), AgentClient{Force: true}},
		{"agent over TCP", []string{"-listen=10.77.1.1:7470", "-tls-cert=s.pem", "-tls-key", "s-key.pem", "-tls-client-ca=ca.pem",
			"-tls-allow-name=operator", "-tls-allow-name", "ci"}, wrap(ParseAgent),
			Agent{Listen: "10.77.1.1:7470", TLSCert: "s.pem", TLSKey: "s-key.pem", TLSClientCA: "ca.pem", AllowNames: []string{"operator", "ci"}}},
		{"agent over TCP on every address", []string{"-listen=:7470", "-tls-cert=s.pem", "-tls-key=k", "-tls-client-ca=ca.pem"}, wrap(ParseAgent),
			Agent{Listen: ":7470", TLSCert: "s.pem", TLSKey: "k", TLSClientCA: "ca.pem"}},
		{"agent with metrics and JSON logs", []string{"-metrics=127.0.0.1:9477", "-metrics-per-object", "-log-format=json", "-log-level=debug"}, wrap(ParseAgent),
			Agent{Metrics: "127.0.0.1:9477", MetricsPerObject: true, LogFormat: "json", LogLevel: "debug"}},
		{"agent metrics over TLS without listen", []string{"-metrics=:9477", "-tls-cert=s.pem", "-tls-key=k", "-tls-client-ca=ca.pem"}, wrap(ParseAgent),
			Agent{Metrics: ":9477", TLSCert: "s.pem", TLSKey: "k", TLSClientCA: "ca.pem"}},
		{"agent log-level", []string{"-socket=/s", "DEBUG"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("log-level", a) }),
			AgentClient{Socket: "/s", Level: "debug"}},
		{"agent status remote", []string{"-address=10.77.1.1:7470", "-tls-ca=ca.pem", "-tls-cert=o.pem", "-tls-key=o-key.pem", "-tls-server-name=storage-1"},
			wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("status", a) }),
			AgentClient{Address: "10.77.1.1:7470", TLSCA: "ca.pem", TLSCert: "o.pem", TLSKey: "o-key.pem", TLSServerName: "storage-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := tc.got(tc.args)
			if len(diags) > 0 {
				t.Fatalf("%q: unexpected diagnostics: %q", tc.args, errorsOf(diags))
			}
			if !reflect.DeepEqual(tc.want, got) {
				t.Errorf("%q:\n got %+v\nwant %+v", tc.args, got, tc.want)
			}
		})
	}
}

func TestParseStateCommandErrors(t *testing.T) {
	t.Parallel()
	pointer := func(name string) string {
		return "\n\nFor more help on using this command, run:\n  rdmaform " + name + " -help"
	}
	agentStatus := func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("status", a) }
	const listenNeeds = "The agent serves TCP over mutual TLS only (there is no plaintext mode: the API carries private data, and over TCP a certificate is the only proof of who the client is). Give its certificate and key with -tls-cert and -tls-key, and the CA that signs the clients' certificates with -tls-client-ca; docs/agent.md says how to make them."
	tests := []struct {
		name  string
		args  []string
		parse func([]string) (any, Diagnostics)
		want  []string
		help  bool
	}{
		{"show two files", []string{"a", "-no-color", "b"}, wrap(ParseShow), []string{"show takes at most one argument: a state file or a saved plan file\n\nGot 2: [\"a\" \"b\"]."}, false},
		{"show bad option after the file", []string{"a", "-nope"}, wrap(ParseShow), []string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + pointer("show")}, false},
		{"output two names", []string{"a", "b"}, wrap(ParseOutput), []string{"Unexpected argument\n\nThe output command expects exactly one argument with the name of an output\nvariable or no arguments to show all outputs."}, false},
		{"output raw without a name", []string{"-raw"}, wrap(ParseOutput), []string{"-raw needs the name of one output, and cannot be used with -json\n\n"}, false},
		{"output raw and json", []string{"-raw", "-json", "a"}, wrap(ParseOutput), []string{"-raw needs the name of one output, and cannot be used with -json\n\n"}, false},
		{"taint nothing", nil, wrap(ParseTaint), []string{"taint takes exactly one address, such as endpoint.client[0]\n\n"}, false},
		{"untaint bad address", []string{"endpoint"}, wrap(ParseUntaint), []string{"Invalid address\n\n" + addrError(t, "endpoint")}, false},
		// A bad option only: the address is not judged after it.
		{"taint bad option", []string{"-nope"}, wrap(ParseTaint), []string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + pointer("taint")}, false},
		{"force-unlock no id", nil, wrap(ParseForceUnlock), []string{"Expected a single argument: LOCK_ID\n\nUsage: rdmaform [global options] force-unlock [-force] LOCK_ID"}, false},
		{"import nothing", nil, wrap(ParseImport), []string{"import takes an address and, optionally, the agent's name for the object\n\n"}, true},
		{"import three", []string{"a", "b", "c"}, wrap(ParseImport), []string{"import takes an address and, optionally, the agent's name for the object\n\n"}, true},
		{"import bad address", []string{"nope"}, wrap(ParseImport), []string{"Invalid address\n\n" + addrError(t, "nope")}, false},
		{"import bad options", []string{"-lock-timeout=x", "-var=y"}, wrap(ParseImport), []string{"Failed to parse command-line flags\n\n" +
			`invalid value "x" for flag -lock-timeout: "x" is not a duration: write a number with a unit, such as 5s, 2m or 1h30m` + "\n" +
			`invalid value "y" for flag -var: the value must be name=value, such as -var 'port=7471'` + pointer("import")}, false},
		{"agent argument", []string{"x"}, wrap(ParseAgent), []string{`agent takes no arguments, got ["x"]` + "\n\n"}, true},
		{"agent status bad option", []string{"-log=x"}, wrap(agentStatus), []string{"Failed to parse command-line flags\n\nflag provided but not defined: -log" + pointer("agent status")}, false},
		{"agent listen without TLS", []string{"-listen=127.0.0.1:7470"}, wrap(ParseAgent), []string{"-listen needs -tls-cert, -tls-key, -tls-client-ca\n\n" + listenNeeds}, false},
		{"agent listen without a key", []string{"-listen=127.0.0.1:7470", "-tls-cert=c", "-tls-client-ca=ca"}, wrap(ParseAgent), []string{"-listen needs -tls-key\n\n" + listenNeeds}, false},
		{"agent bad listen", []string{"-listen=7470", "-tls-cert=c", "-tls-key=k", "-tls-client-ca=ca"}, wrap(ParseAgent),
			[]string{"Invalid -listen address\n\n-listen=7470 is not HOST:PORT, such as -listen=10.77.1.1:7470 (or :7470 for every address): address 7470: missing port in address"}, false},
		{"agent TLS without listen", []string{"-tls-cert=c", "-tls-allow-name=x"}, wrap(ParseAgent),
			[]string{"-tls-cert, -tls-allow-name without -listen\n\nThe TLS options are for the TCP address -listen=HOST:PORT serves; without it the agent serves its unix socket only."}, false},
		{"agent metrics TLS without a key", []string{"-metrics=:9477", "-tls-cert=c", "-tls-client-ca=ca"}, wrap(ParseAgent),
			[]string{"-metrics with TLS settings needs -tls-key\n\nThe agent serves /metrics over mutual TLS when it has TLS settings: give its certificate and key with -tls-cert and -tls-key, and the CA that signs the scrapers' certificates with -tls-client-ca."}, false},
		{"agent bad observability flags", []string{"-metrics=9477", "-log-format=xml", "-log-level=loud"}, wrap(ParseAgent), []string{
			"Invalid -metrics address\n\n-metrics=9477 is not HOST:PORT, such as -metrics=127.0.0.1:9477 (or :9477 for every address): address 9477: missing port in address",
			"Invalid -log-format\n\n-log-format=xml: use text or json.",
			"Invalid -log-level\n\n-log-level=loud: use trace, debug, info, warn or error."}, false},
		{"agent per-object without metrics", []string{"-metrics-per-object"}, wrap(ParseAgent),
			[]string{"-metrics-per-object without -metrics\n\nIt adds an object label to the metrics -metrics=HOST:PORT serves."}, false},
		{"agent log-level without a level", []string{"-socket=/s"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("log-level", a) }),
			[]string{`agent log-level takes one level after its options (trace, debug, info, warn or error), got []` + "\n\n"}, true},
		{"agent log-level unknown", []string{"loud"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("log-level", a) }),
			[]string{"Invalid log level\n\n\"loud\": use trace, debug, info, warn or error."}, false},
		{"agent status address without files", []string{"-address=h:1", "-tls-ca=ca", "-socket=/s"}, wrap(agentStatus), []string{
			"-socket and -address both given\n\nGive -socket for the local agent, or -address for a remote one.",
			"-address needs -tls-cert, -tls-key\n\nA remote agent is reached over mutual TLS only: give the CA its certificate chains to (-tls-ca), and our certificate and key (-tls-cert, -tls-key)."}, false},
		{"agent status TLS without address", []string{"-tls-ca=ca"}, wrap(agentStatus),
			[]string{"TLS options without -address\n\n-tls-ca, -tls-cert, -tls-key and -tls-server-name are for a remote agent named by -address=HOST:PORT."}, false},
		{"agent stop has no address", []string{"-address=h:1"}, wrap(func(a []string) (*AgentClient, Diagnostics) { return ParseAgentClient("stop", a) }),
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -address" + pointer("agent stop")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := tc.parse(tc.args)
			if !diags.HasErrors() {
				t.Fatalf("%q: no error", tc.args)
			}
			sameErrors(t, tc.args, tc.want, diags)
			if got := HelpAfter(diags[len(diags)-1]); got != tc.help {
				t.Errorf("%q: help after the error: %v, want %v", tc.args, got, tc.help)
			}
		})
	}
}
