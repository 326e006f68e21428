package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// takePending takes out of priors the objects an apply recorded as being
// made and was killed before it recorded the outcome (state.Facts.Pending:
// no attributes yet, only the agent's name and the create token). One the
// agent holds with that token is adopted, as an import block would, when
// the configuration still declares it (the returned map: address to agent
// name), and destroyed (deposed) otherwise; one it does not hold is a drift
// the plan shows, and leaves the state. One the agent reports failed (its
// first connect timed out or was rejected: the agent will not try again)
// is destroyed too, and, when still declared, made anew: adopting it would
// record a failed object as made. Without a refresh (live is nil) each is
// taken as held: apply finds out.
func (p *Plan) takePending(cfg *config.Config, priors map[string]*prior, live map[string]LiveObject, reads func(agent string) bool, opts Options) map[addrs.Instance]string {
	var adopt map[addrs.Instance]string
	for key, pr := range priors {
		f := pr.obj.Facts
		if !f.Pending {
			continue
		}
		delete(priors, key)
		a, h := pr.obj.Addr, AgentHandle(pr.obj)
		if live != nil && reads(pr.obj.Agent) {
			if lo, held := live[h]; !held || lo.Agent != pr.obj.Agent || lo.Token != f.CreateToken {
				dr := Drift{Addr: a, Before: pr.value(), Pending: true}
				if held {
					dr.Status = lo.Status
				}
				p.Drift = append(p.Drift, dr)
				continue
			}
		}
		var failed string
		if lo, held := live[h]; held && lo.Agent == pr.obj.Agent && pendingFailed(a, lo.Status) {
			failed = lo.Status
			if lo.Error != "" {
				failed += ": " + lo.Error
			}
		}
		if failed == "" && cfg != nil && !opts.Destroy && cfg.Instances[a] != nil {
			if adopt == nil {
				adopt = map[addrs.Instance]string{}
			}
			adopt[a] = h
			continue
		}
		p.Deposed = append(p.Deposed, Deposed{Addr: a, Handle: h, Token: f.CreateToken, Pending: true, Failed: failed, Agent: pr.obj.Agent})
	}
	return adopt
}

// pendingFailed reports whether an object an interrupted apply asked for
// is, by the agent's status, one its create would have failed on: the
// agent does not retry an endpoint's first connect, reconnect block or not.
func pendingFailed(a addrs.Instance, status string) bool {
	switch status {
	case "error":
		return true
	case "rejected", "disconnected":
		return a.Kind == addrs.Endpoint
	}
	return false
}
