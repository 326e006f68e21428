package render

import (
	"bytes"
	"fmt"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"github.com/zclconf/go-cty/cty"
)

// remadePending returns the objects an interrupted apply made, which the
// agent reports failed and the configuration still declares: the plan
// destroys each (a Deposed) and creates it anew (a Create at the same
// address). Shown as two entries they read as two objects, the create
// first though apply destroys first; Terraform shows one "-/+", as for a
// tainted object.
func remadePending(p *planner.Plan) map[addrs.Instance]planner.Deposed {
	var failed map[addrs.Instance]planner.Deposed
	for _, d := range p.Deposed {
		if d.Pending && d.Failed != "" {
			if failed == nil {
				failed = map[addrs.Instance]planner.Deposed{}
			}
			failed[d.Addr] = d
		}
	}
	if failed == nil {
		return nil
	}
	remade := map[addrs.Instance]planner.Deposed{}
	for _, ch := range p.Changes {
		if d, ok := failed[ch.Addr]; ok && ch.Action == planner.Create && !ch.Importing() {
			remade[ch.Addr] = d
		}
	}
	return remade
}

// writeRemade writes the create ch of an object whose failed predecessor
// d is destroyed first, as one replacement: the old object is known only
// by the agent's name for it (the interrupted apply recorded no
// attributes), so its id is what changes and the rest is new.
func writeRemade(b *bytes.Buffer, c colorizer, ch *planner.Change, d planner.Deposed) {
	b.WriteString(c.style("  # "+ch.Addr.String()+" must be replaced", bold) + "\n")
	fmt.Fprintf(b, "  # (made by an interrupted apply, and the agent reports it failed (%s):\n  # destroyed, then made again)\n", termsafe.String(d.Failed))
	fmt.Fprintf(b, "%s %s %q {\n", padSymbol(c, planner.DeleteThenCreate.Symbol()), ch.Addr.Kind, ch.Addr.Name)
	before := cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(d.Handle)})
	w := &blockWriter{b: b, c: c, afterSens: ch.AfterSensitive}
	w.body(config.Schema(ch.Addr.Kind), before, ch.AfterValue(), planner.Update, nil, 1)
	b.WriteString("    }\n")
}
