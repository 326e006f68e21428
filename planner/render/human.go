package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"github.com/zclconf/go-cty/cty"
)

// Human writes p as terraform plan does: changes made outside rdmaform,
// the legend of the symbols used, one block per change, the output
// changes and the summary line (or "No changes.").
func Human(w io.Writer, p *planner.Plan, color bool) {
	c := colorizer(color)
	// A buffer written out every 64 KiB and reused, rather than the whole
	// plan in one string grown by doubling: for a thousand objects the
	// rendering allocated several times the text it wrote.
	var b bytes.Buffer
	writeDrift(&b, c, p)
	if !p.HasChanges() {
		writeNoChanges(&b, c, p)
		w.Write(b.Bytes())
		return
	}
	add, change, destroy := p.Counts()
	if add+change+destroy > 0 || len(p.Moves) > 0 || len(p.Forgets) > 0 || p.Imports() > 0 {
		remade := remadePending(p)
		if add+change+destroy > 0 {
			writeLegend(&b, c, p, remade)
		}
		b.WriteString("\nrdmaform will perform the following actions:\n")
		for _, ch := range p.Changes {
			d, isRemade := remade[ch.Addr]
			switch {
			case ch.Action == planner.NoOp && ch.Moved():
				b.WriteString("\n")
				writeMoved(&b, c, ch)
			case isRemade && ch.Action == planner.Create:
				b.WriteString("\n")
				writeRemade(&b, c, ch, d)
			case ch.Action != planner.NoOp:
				b.WriteString("\n")
				writeChange(&b, c, ch)
			}
			if b.Len() >= 64<<10 {
				w.Write(b.Bytes())
				b.Reset()
			}
		}
		for _, d := range p.Deposed {
			if _, ok := remade[d.Addr]; ok && d.Pending {
				continue // written with its create
			}
			b.WriteString("\n")
			writeDeposed(&b, c, d)
		}
		for _, f := range p.Forgets {
			b.WriteString("\n")
			b.WriteString(c.style(fmt.Sprintf("  # %s will no longer be managed by rdmaform", f.Addr), bold) + "\n")
			fmt.Fprintf(&b, "  . %s %q {\n        id = %q\n    }\n", f.Addr.Kind, f.Addr.Name, f.Handle)
		}
		b.WriteString("\n")
		b.WriteString(c.style("Plan:", bold) + strings.TrimPrefix(Summary(p), "Plan:") + "\n")
	}
	if ocs := p.ChangedOutputs(); len(ocs) > 0 {
		writeOutputChanges(&b, c, ocs)
		if add+change+destroy == 0 {
			b.WriteString("\nYou can apply this plan to save these new output values to the rdmaform\nstate, without changing any real objects.\n")
		}
	}
	w.Write(b.Bytes())
}

// Summary is the line that ends a plan: "Plan: 2 to add, 1 to change, 0
// to destroy."
func Summary(p *planner.Plan) string {
	add, change, destroy := p.Counts()
	s := fmt.Sprintf("%d to add, %d to change, %d to destroy", add, change, destroy)
	if n := p.Imports(); n > 0 {
		s = fmt.Sprintf("%d to import, %s", n, s)
	}
	if len(p.Forgets) > 0 {
		s += fmt.Sprintf(", %d to forget", len(p.Forgets))
	}
	return "Plan: " + s + "."
}

func writeNoChanges(b *bytes.Buffer, c colorizer, p *planner.Plan) {
	if p.Destroy {
		// Terraform's words for a destroy with nothing to destroy.
		b.WriteString("\n" + c.style("No changes.", green, bold) + c.style(" No objects need to be destroyed.", bold) + "\n\n")
		b.WriteString("Either you have not created any objects yet or the existing objects were\nalready deleted outside of rdmaform.\n")
		return
	}
	if p.RefreshOnly {
		// Terraform's words for a refresh that found nothing.
		b.WriteString("\n" + c.style("No changes.", green, bold) + c.style(" Your fabric still matches the configuration.", bold) + "\n\n")
		b.WriteString("rdmaform has checked that the live objects still match the result of your\nmost recent changes, and found no differences.\n")
		return
	}
	b.WriteString("\n" + c.style("No changes.", green, bold) + c.style(" Your fabric matches the configuration.", bold) + "\n\n")
	if p.RefreshesFacts() {
		b.WriteString("Your configuration already matches the changes detected above. \"rdmaform\napply\" records them in the state, as \"rdmaform apply -refresh-only\" does.\n")
		return
	}
	if p.Refreshed {
		b.WriteString("rdmaform has compared the live fabric against your configuration and found\nno differences, so no changes are needed.\n")
	} else {
		b.WriteString("rdmaform has compared the state (not refreshed from the agent: -refresh=false)\nagainst your configuration and found no differences, so no changes are\nneeded.\n")
	}
}

func writeDrift(b *bytes.Buffer, c colorizer, p *planner.Plan) {
	if len(p.Drift) == 0 {
		return
	}
	b.WriteString("\n" + c.style("Note: Objects have changed outside of rdmaform", bold) + "\n\n")
	b.WriteString("rdmaform detected the following changes made outside of rdmaform since the\nlast \"rdmaform apply\":\n")
	for _, d := range p.Drift {
		if !d.Deleted() {
			b.WriteString("\n" + c.style(fmt.Sprintf("  # %s has changed", d.Addr), bold) + "\n")
			switch {
			case sameAttr(d.Before, d.After, "qp_num") && sameAttr(d.Before, d.After, "local_port"):
				fmt.Fprintf(b, "  # (the agent reports it %s)\n", termsafe.String(d.Status))
			case d.Facts.QPNum == 0:
				fmt.Fprintf(b, "  # (the agent reports it %s: its connection ended, and with it its QP and port)\n", termsafe.String(d.Status))
			default:
				b.WriteString("  # (the agent reconnected it: a new connection, with its own QP and port)\n")
			}
			fmt.Fprintf(b, "%s %s %q {\n", padSymbol(c, planner.Update.Symbol()), d.Addr.Kind, d.Addr.Name)
			w := &blockWriter{b: b, c: c, beforeSens: d.BeforeSensitive, afterSens: d.BeforeSensitive}
			w.body(config.Schema(d.Addr.Kind), d.Before, d.After, planner.Update, nil, 1)
			b.WriteString("    }\n")
			continue
		}
		b.WriteString("\n" + c.style(fmt.Sprintf("  # %s has been deleted", d.Addr), bold) + "\n")
		switch {
		case d.Pending:
			b.WriteString("  # (an interrupted apply was to make it, and the agent does not hold it: it was not made)\n")
		case d.Status != "":
			fmt.Fprintf(b, "  # (the agent holds another object at this address, %s, made by another create token)\n", termsafe.String(d.Status))
		default:
			b.WriteString("  # (the agent no longer holds it: the agent restarted, or its device was removed)\n")
		}
	}
	if p.RefreshOnly {
		b.WriteString("\nThis is a refresh-only plan, so rdmaform will not take any actions to undo\nthese. If you were expecting these changes then you can apply this plan to\nrecord the updated values in the rdmaform state without changing any live\nobjects.\n")
		return
	}
	b.WriteString("\nUnless you have made equivalent changes to your configuration, the following\nplan includes actions to respond to these changes.\n\n")
	b.WriteString(strings.Repeat("─", 77) + "\n")
}

// writeLegend lists the symbols the plan uses, in Terraform's order.
func writeLegend(b *bytes.Buffer, c colorizer, p *planner.Plan, remade map[addrs.Instance]planner.Deposed) {
	used := map[planner.Action]bool{planner.Delete: len(p.Deposed) > len(remade)}
	for _, ch := range p.Changes {
		a := ch.Action
		if _, ok := remade[ch.Addr]; ok && a == planner.Create {
			a = planner.DeleteThenCreate
		}
		used[a] = used[a] || !ch.Importing()
	}
	b.WriteString("\nrdmaform compared the configuration with the state")
	if p.Refreshed {
		b.WriteString(" and the live fabric")
	}
	b.WriteString(".\nResource actions are indicated with the following symbols:\n")
	for _, l := range []struct {
		a    planner.Action
		text string
	}{
		{planner.Create, "create"},
		{planner.Update, "update in-place"},
		{planner.Delete, "destroy"},
		{planner.DeleteThenCreate, "destroy and then create replacement"},
		{planner.CreateThenDelete, "create replacement and then destroy"},
	} {
		if used[l.a] {
			fmt.Fprintf(b, "%s %s\n", padSymbol(c, l.a.Symbol()), l.text)
		}
	}
}

// padSymbol right-aligns a symbol in three columns: "  +", "-/+".
func padSymbol(c colorizer, sym string) string {
	return strings.Repeat(" ", 3-len(sym)) + c.symbol(sym)
}

// writeChange writes one change: the comment saying what happens and why,
// then the object with its attributes.
func writeChange(b *bytes.Buffer, c colorizer, ch *planner.Change) {
	b.WriteString(c.style("  # "+ch.Addr.String()+" "+headline(ch), bold) + "\n")
	if ch.Moved() {
		b.WriteString("  # (moved from " + ch.PrevAddr.String() + ")\n")
	}
	if r := reasonLine(ch); r != "" {
		b.WriteString("  # " + r + "\n")
	}
	sym := padSymbol(c, ch.Action.Symbol())
	if ch.Importing() {
		sym = "   "
	}
	fmt.Fprintf(b, "%s %s %q {\n", sym, ch.Addr.Kind, ch.Addr.Name)
	writeAgent(b, c, ch)
	w := &blockWriter{b: b, c: c, replace: ch.RequiredReplace, beforeSens: ch.BeforeSensitive, afterSens: ch.AfterSensitive, plain: ch.Importing()}
	action := ch.Action
	if action.IsReplace() {
		action = planner.Update // a replacement shows what differs
	}
	w.body(config.Schema(ch.Addr.Kind), ch.BeforeValue(), ch.AfterValue(), action, nil, 1)
	b.WriteString("    }\n")
}

// writeMoved writes an object a moved block relabels and nothing else
// changes, as Terraform does: its identity, the rest hidden.
func writeMoved(b *bytes.Buffer, c colorizer, ch *planner.Change) {
	b.WriteString(c.style(fmt.Sprintf("  # %s has moved to %s", ch.PrevAddr, ch.Addr), bold) + "\n")
	fmt.Fprintf(b, "    %s %q {\n", ch.Addr.Kind, ch.Addr.Name)
	if before := ch.BeforeValue(); before.IsKnown() && !before.IsNull() && before.Type().HasAttribute("id") && before.GetAttr("id").IsKnown() && !before.GetAttr("id").IsNull() {
		id := before.GetAttr("id")
		fmt.Fprintf(b, "        id = %q\n", id.AsString())
	}
	b.WriteString("        # (its attributes are unchanged)\n    }\n")
}

// writeDeposed writes the destruction of an object a create_before_destroy
// replacement left behind.
func writeDeposed(b *bytes.Buffer, c colorizer, d planner.Deposed) {
	if d.Pending {
		// Not deposed in Terraform's sense (a replacement's leftover):
		// an object an interrupted apply made for a block since removed.
		b.WriteString(c.style(fmt.Sprintf("  # %s will be destroyed", d.Addr), bold) + "\n")
	} else {
		b.WriteString(c.style(fmt.Sprintf("  # %s (deposed object %s) will be destroyed", d.Addr, planner.DeposedKey(d.Token)), bold) + "\n")
	}
	switch {
	case d.Failed != "":
		fmt.Fprintf(b, "  # (made by an interrupted apply, and the agent reports it failed (%s):\n  # destroyed, and made again if the configuration declares it)\n", termsafe.String(d.Failed))
	case d.Pending:
		b.WriteString("  # (made by an interrupted apply, and no longer in the configuration)\n")
	default:
		b.WriteString("  # (left by a create_before_destroy replacement whose apply stopped before destroying it)\n")
	}
	fmt.Fprintf(b, "%s %s %q {\n", padSymbol(c, planner.Delete.Symbol()), d.Addr.Kind, d.Addr.Name)
	fmt.Fprintf(b, "      %s id = %q -> null\n", c.symbol("-"), d.Handle)
	b.WriteString("    }\n")
}

func headline(ch *planner.Change) string {
	if ch.Importing() {
		return "will be imported"
	}
	switch ch.Action {
	case planner.Create:
		return "will be created"
	case planner.Update:
		return "will be updated in-place"
	case planner.Delete:
		return "will be destroyed"
	case planner.DeleteThenCreate, planner.CreateThenDelete:
		switch ch.Reason {
		case planner.ReasonReplaceByRequest:
			return "will be replaced, as requested"
		case planner.ReasonTainted:
			return "is tainted, so must be replaced"
		case planner.ReasonReplaceByTriggers:
			return "will be replaced due to changes in replace_triggered_by"
		}
		return "must be replaced"
	}
	return "has no changes"
}

// reasonLine explains a change, as Terraform's "(because ...)" lines.
func reasonLine(ch *planner.Change) string {
	if ch.Importing() && ch.Reason == planner.ReasonInterruptedApply {
		return fmt.Sprintf("(an interrupted apply asked the agent for it and did not record it: the agent\n  # holds it, as %q, so it is adopted rather than made again)", ch.ImportID)
	}
	if ch.Importing() {
		return fmt.Sprintf("(imported from %q)", ch.ImportID)
	}
	if ch.TargetedVia.Kind != "" {
		return fmt.Sprintf("(because it depends on %s, which -target destroys: it goes first)", ch.TargetedVia)
	}
	switch ch.Reason {
	case planner.ReasonGone:
		return "(because the agent no longer holds it)"
	case planner.ReasonListenerReplaced:
		return "(because the listener it connects to is replaced: without a reconnect block its connection would end)"
	case planner.ReasonListenerReconnect:
		return "(because the listener it connects to is replaced: it reconnects by itself, on a new connection,\n  # which apply waits for)"
	case planner.ReasonFailed:
		what := "it " + termsafe.String(ch.LiveStatus)
		if ch.LiveStatus == "error" {
			what = "an error"
		}
		if ch.LiveError != "" {
			what += " (" + termsafe.String(ch.LiveError) + ")" // the agent's words, a peer's reject reason
		}
		return fmt.Sprintf("(because the agent reports %s and will not bring it back by itself)", what)
	case planner.ReasonNoConfig:
		return fmt.Sprintf("(because %s is not in configuration)", ch.Addr.Resource)
	case planner.ReasonWrongRepetition:
		switch ch.Addr.Key.(type) {
		case addrs.IntKey:
			return "(because resource does not use count)"
		case addrs.StringKey:
			return "(because resource does not use for_each)"
		}
		return "(because resource uses count or for_each)"
	case planner.ReasonNoKey:
		switch k := ch.Addr.Key.(type) {
		case addrs.IntKey:
			return fmt.Sprintf("(because index [%d] is out of range for count)", int(k))
		case addrs.StringKey:
			return fmt.Sprintf("(because key [%q] is not in for_each map)", string(k))
		}
	}
	return ""
}

func writeOutputChanges(b *bytes.Buffer, c colorizer, ocs []planner.OutputChange) {
	b.WriteString("\nChanges to Outputs:\n")
	width := 0
	for _, oc := range ocs {
		width = max(width, len(oc.Name))
	}
	for _, oc := range ocs {
		var text string
		switch {
		case oc.Sensitive:
			text = "(sensitive value)"
		case oc.Action == planner.Create:
			text = value(oc.After, "    ")
		case oc.Action == planner.Delete:
			text = value(oc.Before, "    ") + " -> null"
		default:
			if d, ok := valueDiff(c, oc.Before, oc.After, "    "); ok {
				text = d
			} else {
				text = value(oc.Before, "    ") + " -> " + value(oc.After, "    ")
			}
		}
		fmt.Fprintf(b, "  %s %s = %s\n", c.symbol(oc.Action.Symbol()), pad(oc.Name, width), text)
	}
}

// sameAttr reports whether a and b have the same value of the attribute
// name (or neither has it).
func sameAttr(a, b cty.Value, name string) bool {
	has := func(v cty.Value) bool {
		return v.IsKnown() && !v.IsNull() && v.Type().IsObjectType() && v.Type().HasAttribute(name)
	}
	if !has(a) || !has(b) {
		return has(a) == has(b)
	}
	return a.GetAttr(name).RawEquals(b.GetAttr(name))
}
