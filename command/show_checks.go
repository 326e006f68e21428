package command

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// checkJSON is one checkable object's outcome in Terraform's JSON output
// ("checks": hashicorp/terraform-json's CheckResultStatic).
type checkJSON struct {
	Address   checkAddressJSON    `json:"address"`
	Status    config.CheckStatus  `json:"status"`
	Instances []checkInstanceJSON `json:"instances,omitempty"`
}

type checkAddressJSON struct {
	ToDisplay string           `json:"to_display"`
	Kind      config.CheckKind `json:"kind"`
	Mode      string           `json:"mode,omitempty"` // a resource's: managed
	Type      string           `json:"type,omitempty"`
	Name      string           `json:"name,omitempty"`
}

type checkInstanceJSON struct {
	Address struct {
		ToDisplay   string `json:"to_display"`
		InstanceKey any    `json:"instance_key,omitempty"`
	} `json:"address"`
	Status   config.CheckStatus `json:"status"`
	Problems []checkProblemJSON `json:"problems,omitempty"`
}

type checkProblemJSON struct {
	Message string `json:"message"`
}

// checksJSON is the configuration's check outcomes with valueOf's values
// of the objects, as show -json gives them; nil when it has no
// conditions (the key is then left out, as Terraform leaves it).
func checksJSON(cfg *config.Config, valueOf func(addrs.Instance) (cty.Value, bool)) []checkJSON {
	var out []checkJSON
	for _, r := range cfg.CheckResults(valueOf) {
		c := checkJSON{Status: r.Status, Address: checkAddressJSON{Kind: r.Kind, Name: r.Name}}
		switch r.Kind {
		case config.CheckKindResource:
			c.Address.ToDisplay, c.Address.Mode, c.Address.Type, c.Address.Name = r.Resource.String(), "managed", string(r.Resource.Kind), r.Resource.Name
		case config.CheckKindOutput:
			c.Address.ToDisplay = "output." + r.Name
		default:
			c.Address.ToDisplay = "check." + r.Name
		}
		for _, i := range r.Instances {
			var ij checkInstanceJSON
			ij.Address.ToDisplay, ij.Status = c.Address.ToDisplay, i.Status
			if r.Kind == config.CheckKindResource {
				ij.Address.ToDisplay, ij.Address.InstanceKey = i.Addr.String(), addrs.KeyValue(i.Addr.Key)
			}
			for _, p := range i.Problems {
				ij.Problems = append(ij.Problems, checkProblemJSON{Message: p})
			}
			c.Instances = append(c.Instances, ij)
		}
		out = append(out, c)
	}
	return out
}

// plannedValueOf gives each object's value as the plan leaves it (unknown
// where known only after apply); objects it deletes have none.
func plannedValueOf(p *planner.Plan) func(addrs.Instance) (cty.Value, bool) {
	return func(a addrs.Instance) (cty.Value, bool) {
		if c := p.Change(a); c != nil && c.Action != planner.Delete {
			return c.AfterValue(), true
		}
		return cty.NilVal, false
	}
}

// showConfig is the working directory's configuration as show reads it
// for -json's configuration and checks: variables without a value are
// unknown, and conditions are left to the checks; nil when it does not
// load.
func showConfig(s Meta) *config.Config {
	l := newConfigLoader(s.startDir)
	l.Validate = true
	l.SkipPreconditions = true
	cfg, diags := l.Load(".", config.VarInputs{})
	if diags.HasErrors() {
		return nil
	}
	return cfg
}
