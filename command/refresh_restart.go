package command

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// A refresh records that objects the agent no longer holds are gone, as
// Terraform's does. But an rdmaform agent holds its objects in memory
// only: one that restarted (a reboot, a crash) holds none, and a refresh
// then empties the state, outputs too, although nothing was destroyed on
// purpose and "rdmaform apply" would make it all again. So a refresh
// that drops objects made before the agent started says so loudly, and
// refresh asks before it drops them (deliberately unlike Terraform's).

// restartLoss is what a refresh-only plan drops because the agent
// restarted: the objects it no longer holds that were made before it
// started (an agent cannot have made, and lost, an object older than
// itself).
type restartLoss struct {
	agent   planner.AgentIdentity
	dropped []string
	// newest is when the newest of the dropped objects was made (zero
	// when the state does not say).
	newest time.Time
}

// restartLossOf finds the restart loss of p; nil when there is none, or
// when the plan is not refresh-only, or the agent cannot say who it is.
func (se *session) restartLossOf(p *planner.Plan) *restartLoss {
	if p == nil || !p.RefreshOnly || !p.Refreshed || se.prior == nil || se.conn == nil || se.conn.Agent == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := se.conn.Agent(ctx)
	if err != nil {
		return nil
	}
	return restartLossFor(p, se.prior, id)
}

func restartLossFor(p *planner.Plan, prior *state.State, id planner.AgentIdentity) *restartLoss {
	started := time.Unix(0, id.StartedAt)
	l := &restartLoss{agent: id}
	for _, d := range p.Drift {
		o := prior.Object(d.Addr)
		if !d.Deleted() || d.Status != "" || o == nil || o.Agent != "" || !o.Facts.CreatedAt.Before(started) {
			continue
		}
		l.dropped = append(l.dropped, d.Addr.String())
		if o.Facts.CreatedAt.After(l.newest) {
			l.newest = o.Facts.CreatedAt
		}
	}
	if len(l.dropped) == 0 {
		return nil
	}
	return l
}

// words says what the refresh would drop, and why.
func (l *restartLoss) words(outputs int) string {
	n := len(l.dropped)
	names := slices.Sorted(slices.Values(l.dropped))
	if n > 10 {
		names = append(names[:10:10], fmt.Sprintf("and %d more", n-10))
	}
	when := ""
	if !l.newest.IsZero() {
		when = fmt.Sprintf(" (the last at %s)", l.newest.Local().Format(time.RFC3339))
		if n == 1 {
			when = fmt.Sprintf(" (at %s)", l.newest.Local().Format(time.RFC3339))
		}
	}
	what, it := fmt.Sprintf("these %d objects were made%s: it holds none of them", n, when), "them"
	if n == 1 {
		what, it = fmt.Sprintf("this object was made%s: it does not hold it", when), "it"
	}
	if outputs > 0 {
		it += " (and the outputs computed from " + it + ")"
	}
	return fmt.Sprintf("The agent (pid %d) started at %s, after %s, and a refresh would remove %s from the state: %s.\n\nThe agent holds its objects in memory only, so they went with the agent that held them before (a restart or a reboot). \"rdmaform apply\" makes them again and keeps the state; refresh only if they are gone for good.",
		l.agent.PID, time.Unix(0, l.agent.StartedAt).Local().Format(time.RFC3339), what, it, strings.Join(names, ", "))
}

// restartWarnings is the warning of a refresh-only plan that would drop
// what the agent lost by restarting.
func (se *session) restartWarnings(p *planner.Plan) hcl.Diagnostics {
	l := se.restartLossOf(p)
	if l == nil {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "The agent restarted: this refresh drops what it lost",
		Detail: l.words(len(se.prior.Outputs))}}
}

// approveRestartLoss asks, for refresh (whose -auto-approve is implied,
// not given), before it drops what the agent lost by restarting; apply
// -refresh-only asks its own question, and a given -auto-approve is the
// answer. Without a terminal (or with -json or -input=false) it refuses.
func approveRestartLoss(se *session, a *arguments.Apply, p *planner.Plan) bool {
	if !a.AutoApproveImplied {
		return true
	}
	l := se.restartLossOf(p)
	if l == nil {
		return true
	}
	s := se.s
	n := len(l.dropped)
	se.planText.writeTo(s.Out) // what the refresh records, before the question
	if !a.Input || a.View.JSON || !s.stdinIsTerminal() {
		s.showError("Refresh not done: the agent restarted", fmt.Sprintf("This refresh would remove %d %s the agent lost by restarting from the state (see the warning\nabove), and refresh asks first, on a terminal. Run \"rdmaform apply\" to make them again,\nor \"rdmaform refresh -auto-approve\" to remove them anyway.", n, plural(n, "object", "objects")))
		return false
	}
	fmt.Fprintf(s.Out, "\nDo you really want to remove %d %s from the state?\n"+
		"  The agent restarted and holds none of them (see the warning above).\n"+
		"  \"rdmaform apply\" would make them again. Only 'yes' will be accepted to\n  confirm.\n\n  Enter a value: ", n, plural(n, "object", "objects"))
	if !answeredYes(s, se.intr) {
		fmt.Fprintln(s.Out, "Refresh cancelled.")
		return false
	}
	return true
}
