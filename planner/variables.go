package planner

import (
	"sort"

	"github.com/rdmaform/rdmaform/config"
)

// variablesOf is cfg's root variables with their values, sorted by name
// (none without a configuration: a destroy plan may have none).
func variablesOf(cfg *config.Config) []Variable {
	if cfg == nil {
		return nil
	}
	out := make([]Variable, 0, len(cfg.Variables))
	for name, v := range cfg.Variables {
		out = append(out, Variable{Name: name, Value: v.Value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
