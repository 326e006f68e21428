package command

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// sameFailureShown is how many objects sharing one failure are reported
// one by one, as Terraform does; past it, the failure is reported once
// with the objects it hit (the agent stopping during a thousand creates
// otherwise prints a thousand errors).
const sameFailureShown = 2

// writeApplyErrors prints apply's failures, each with where its object is
// declared (locate; nil: nowhere), as Terraform's do. Failures are the
// same when they are of the same operation with the same message once
// each object's own address is taken out of it.
func writeApplyErrors(w io.Writer, errs []apply.OpError, locate func(addrs.Instance) string) {
	where := func(a addrs.Instance) {
		if locate != nil {
			if at := locate(a); at != "" {
				fmt.Fprintf(w, "\n%s", termsafe.Text(at))
			}
		}
	}
	var groups [][]apply.OpError
	index := map[string]int{}
	for _, e := range errs {
		key := e.Op + "\x00" + strings.ReplaceAll(e.Err.Error(), e.Addr.String(), "\x01")
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], e)
	}
	for _, g := range groups {
		sort.SliceStable(g, func(i, j int) bool { return g[i].Addr.Less(g[j].Addr) })
		if len(g) <= sameFailureShown {
			for _, e := range g {
				fmt.Fprintf(w, "\nError: %s\n", termsafe.Text(e.Error())) // the agent's words, a peer's reject reason
				where(e.Addr)
			}
			continue
		}
		fmt.Fprintf(w, "\nError: %s\n", termsafe.Text(g[0].Error()))
		where(g[0].Addr)
		rest := make([]string, 0, len(g)-1)
		for _, e := range g[1:] {
			rest = append(rest, e.Addr.String())
		}
		fmt.Fprintf(w, "\n  The same %s failure for %d more %s: %s\n", g[0].Op, len(rest), plural(len(rest), "object", "objects"), listSome(rest, 10))
	}
}

// listSome joins the first n of items and says how many it leaves out.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// declaredAt renders where cfg declares a's block, as a diagnostic's
// position and source lines ("  on main.rdma.hcl:9:1, in listener
// \"busy\":" and the line), or "" when it does not.
func declaredAt(l *config.Loader, cfg *config.Config, a addrs.Instance) string {
	if cfg == nil {
		return ""
	}
	r := cfg.Resources[a.Resource]
	if r == nil {
		return ""
	}
	var b bytes.Buffer
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "-", Subject: r.DeclRange.Ptr()}
	if l.WriteDiagnostics(&b, hcl.Diagnostics{d}, false, 0) != nil {
		return ""
	}
	out := b.String()
	i := strings.Index(out, "  on ")
	if i < 0 {
		return ""
	}
	return strings.TrimRight(out[i:], "\n") + "\n"
}
