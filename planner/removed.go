package planner

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
)

// applyForgets takes out of priors the objects that removed blocks with
// lifecycle { destroy = false } name and the configuration no longer
// declares, recording them in p.Forgets, with Terraform's warning.
func (p *Plan) applyForgets(cfg *config.Config, priors map[string]*prior) hcl.Diagnostics {
	if cfg == nil || len(cfg.Removed) == 0 {
		return nil
	}
	for _, a := range sortedPriorAddrs(priors) {
		if cfg.Instances[a] != nil {
			continue
		}
		for _, r := range cfg.Removed {
			if r.Destroy || !r.Matches(a) {
				continue
			}
			pr := priors[a.String()]
			delete(priors, a.String())
			p.Forgets = append(p.Forgets, Forget{Addr: a, Handle: AgentHandle(pr.obj)})
			break
		}
	}
	if len(p.Forgets) == 0 {
		return nil
	}
	var list strings.Builder
	for _, f := range p.Forgets {
		list.WriteString("\n - " + f.Addr.String())
	}
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Some objects will no longer be managed by rdmaform",
		Detail: "If you apply this plan, rdmaform will discard its tracking information for the following objects, but it will not delete them:" + list.String() +
			"\n\nAfter applying this plan, rdmaform will no longer manage these objects; the agent keeps holding them. Import them into a configuration (rdmaform import) to manage them again."}}
}
