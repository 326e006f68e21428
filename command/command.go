// Package command is rdmaform's command-line interface: one file per
// subcommand, each registering itself, and the global options Terraform
// places before the subcommand.
package command

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-shellwords"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

// Version is the rdmaform release this binary was built from, defined
// once, where the states it writes record it.
const Version = state.RdmaformVersion

// command is one rdmaform subcommand; run returns the process exit code.
type command struct {
	Name     string
	Synopsis string
	Run      func(args []string, s Meta) int
	// Subcommands: its first argument names one (state list, agent stop).
	Subcommands bool
}

var commands = map[string]command{}

// register adds a subcommand; each command file registers itself in init so
// that commands stay independent of one another and of this file.
func register(c command) {
	if _, dup := commands[c.Name]; dup {
		panic("rdmaform: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// Run runs rdmaform with args (the command line without the program's
// name) on the process's standard streams and returns the exit code.
func Run(args []string) int {
	return run(args, Meta{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}

// run opens the log RDMAFORM_LOG asks for and runs the command.
func run(args []string, s Meta) int {
	log, closeLog, err := openCLILog(s.Err)
	if err != nil {
		s.showError(err.Error(), "Give a file rdmaform can write to as "+logPathEnv+", or unset it to log to stderr.")
		return 1
	}
	defer closeLog()
	s.log = log
	start := time.Now()
	log.Info("rdmaform", "version", Version, "go", runtime.Version(), "os", runtime.GOOS, "arch", runtime.GOARCH)
	log.Debug("environment", "set", settingNames())
	code := dispatch(args, s)
	log.Debug("exit", "code", code, "took", time.Since(start).Round(time.Millisecond).String())
	return code
}

// dispatch parses the global options Terraform places before the
// subcommand (-chdir, -version, -help) and runs it.
func dispatch(args []string, s Meta) int {
	s.startDir = ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		opt := strings.TrimLeft(args[0], "-")
		switch {
		case strings.HasPrefix(opt, "chdir="):
			dir := strings.TrimPrefix(opt, "chdir=")
			if wd, err := os.Getwd(); err == nil && s.startDir == "" {
				s.startDir = wd
			}
			if err := os.Chdir(dir); err != nil {
				s.showError(fmt.Sprintf("Invalid -chdir option: %v", err), "")
				return 1
			}
		case opt == "chdir":
			s.showError("Invalid -chdir option: it must include an equals sign followed by a directory path, like -chdir=examples/loopback", "")
			return 1
		case opt == "version" || opt == "v":
			args = []string{"version"}
			continue
		case (opt == "help" || opt == "h") && len(args) > 1 && commands[args[1]].Run != nil:
			// rdmaform -help plan is plan's help, as Terraform's.
			return commands[args[1]].Run([]string{"-help"}, s)
		case opt == "help" || opt == "h":
			usage(s.Out)
			return 0
		default:
			s.showError(fmt.Sprintf("unknown global option %q", args[0]), "")
			fmt.Fprint(s.Err, "\n")
			usage(s.Err)
			return 1
		}
		args = args[1:]
	}
	if len(args) == 0 {
		usage(s.Err)
		return 1
	}
	c, ok := commands[args[0]]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		s.showError(fmt.Sprintf("rdmaform has no command named %q.%s", args[0], config.DidYouMean(args[0], names)), "")
		fmt.Fprint(s.Err, "\n")
		usage(s.Err)
		return 1
	}
	rest := args[1:]
	// A subcommand's own variable names it too, as Terraform's
	// TF_CLI_ARGS_state_list: RDMAFORM_CLI_ARGS_state_list.
	name, at := args[0], 0
	if c.Subcommands && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		name, at = name+"_"+rest[0], 1
	}
	extra, err := cliArgsFromEnv(name)
	if err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	if len(extra) > 0 {
		// After the whole command, as Terraform does: state list, agent stop.
		rest = append(append(append([]string(nil), rest[:at]...), extra...), rest[at:]...)
	}
	wd, _ := os.Getwd()
	s.logger().Info("command", "name", args[0], "args", redactArgs(rest), "dir", wd)
	return c.Run(rest, s)
}

// cliArgsFromEnv returns the options RDMAFORM_CLI_ARGS and
// RDMAFORM_CLI_ARGS_<command> (state_list for state list) add before the command line's own, as
// Terraform's TF_CLI_ARGS do (split as a shell would).
func cliArgsFromEnv(command string) ([]string, error) {
	var out []string
	for _, name := range []string{"RDMAFORM_CLI_ARGS", "RDMAFORM_CLI_ARGS_" + command} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		words, err := shellwords.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("cannot split %s (%q): %v", name, v, err)
		}
		out = append(out, words...)
	}
	return out, nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: rdmaform [global options] <subcommand> [args]")
	fmt.Fprintln(w, "\nGlobal options:\n  -chdir=DIR   Switch to DIR before running the subcommand.\n  -help        Show this help.\n  -version     Show the version.")
	fmt.Fprintln(w, "\nSubcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].Synopsis)
	}
}

// settingNames are the names (never the values: ETCDV3_PASSWORD is one)
// of the environment variables that change what rdmaform does.
func settingNames() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "RDMAFORM_") || strings.HasPrefix(name, "ETCDV3_") || strings.HasPrefix(name, "TF_") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
