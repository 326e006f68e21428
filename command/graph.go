package command

import (
	"fmt"
	"io"
	"sort"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

func init() {
	register(command{Name: "graph", Synopsis: "Print the configuration's dependency graph in DOT", Run: runGraph})
}

const graphHelp = `Usage: rdmaform [global options] graph [options]

  Prints the blocks of the configuration and what each depends on (through
  its references and depends_on) as a DOT graph, as "terraform graph"
  does: the order apply creates them in, and destroy reverses. Render it
  with Graphviz, e.g. "rdmaform graph | dot -Tsvg > graph.svg".

Options:
  -type=TYPE           The operation to draw, as Terraform's: plan, apply
                       and plan-refresh-only draw what depends on what
                       (the order objects are made in); plan-destroy
                       draws the order destroy takes, each edge reversed.
  -draw-cycles         Accepted for Terraform compatibility: a cycle is a
                       configuration error, reported with its blocks.
  -no-color            Accepted for Terraform compatibility.
`

func runGraph(args []string, s Meta) int {
	a, diags := arguments.ParseGraph(args)
	if a.Help {
		fmt.Fprint(s.Err, graphHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, graphHelp)
		return 1
	}
	l := newConfigLoader(s.startDir)
	l.Validate = true // variables without a value are unknown: the graph does not need them
	l.SkipPreconditions = true
	l.CoreVersion = Version
	cfg, diags := l.Load(".", config.VarInputs{})
	if len(diags) > 0 {
		l.WriteDiagnostics(s.Err, diags, cfgIsTerminal(s.Err), 0)
	}
	if diags.HasErrors() {
		return 1
	}
	writeDOT(s.Out, cfg, a.Destroy)
	return 0
}

// writeDOT writes cfg's blocks and their dependencies, an edge from each
// block to what it depends on (with destroy, from what it depends on to
// it: destroyed first), in a stable order.
func writeDOT(w io.Writer, cfg *config.Config, destroy bool) {
	rs := make([]*config.Resource, 0, len(cfg.Resources))
	for _, r := range cfg.Resources {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Addr.String() < rs[j].Addr.String() })
	fmt.Fprintf(w, "digraph G {\n  rankdir = \"RL\";\n  node [shape = rect, fontname = \"sans-serif\"];\n")
	for _, r := range rs {
		fmt.Fprintf(w, "  %q [label=%q];\n", r.Addr.String(), r.Addr.String())
	}
	for _, r := range rs {
		deps := append([]addrs.Resource(nil), r.DependsOn...)
		sort.Slice(deps, func(i, j int) bool { return deps[i].String() < deps[j].String() })
		for _, d := range deps {
			from, to := r.Addr.String(), d.String()
			if destroy {
				from, to = to, from
			}
			fmt.Fprintf(w, "  %q -> %q;\n", from, to)
		}
	}
	fmt.Fprintf(w, "}\n")
}
