package planner

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// importTargets are the import blocks' targets the state does not hold,
// with the agent's name for each: the plan adopts them instead of
// creating them. A target the state holds already is left as it is, as in
// Terraform; one the agent lost (gone) is created again.
//
// An object the state holds already under another address (a moved
// object keeps the name it was made under) is refused: one connection
// would be managed twice. So is one the agent does not hold, when the
// plan read what it holds (live is nil with -refresh=false), as
// Terraform reads the object to import while planning.
func importTargets(cfg *config.Config, priors map[string]*prior, live map[string]LiveObject, gone map[addrs.Instance]bool) (map[addrs.Instance]string, hcl.Diagnostics) {
	out := map[addrs.Instance]string{}
	var held map[string]addrs.Instance
	var diags hcl.Diagnostics
	for _, im := range cfg.Imports {
		if priors[im.To.String()] != nil || gone[im.To] {
			continue
		}
		id := im.ID
		if id == "" {
			id = AgentName(im.To, cfg.AgentNamespace())
		}
		if held == nil {
			held = make(map[string]addrs.Instance, len(priors))
			for _, pr := range priors {
				held[AgentHandle(pr.obj)] = pr.obj.Addr
			}
		}
		if holder, ok := held[id]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Object already managed by rdmaform",
				Detail:  fmt.Sprintf("%s imports the agent's %s, which the state holds already, as %s (an object keeps the name it was made under when a moved block or \"state mv\" gives it a new address). Importing it again would manage one connection under two addresses.", im.To, id, holder),
				Subject: im.DeclRange.Ptr()})
			continue
		}
		agent := ""
		if inst := cfg.Instances[im.To]; inst != nil {
			agent = inst.Agent
		}
		if lo, ok := live[id]; live != nil && (!ok || lo.Agent != agent) { // held by the agent the object is to be on
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot import non-existent remote object",
				Detail: fmt.Sprintf("%s imports the agent's %s, which the agent does not hold.%s", im.To, id, heldUnderOtherName(id, live)), Subject: im.DeclRange.Ptr()})
			continue
		}
		out[im.To] = id
	}
	return out, diags
}

// heldUnderOtherName names what the agent holds for id's address under a
// name with a # suffix: a create_before_destroy replacement is made under
// one while the object it replaces holds the usual name, and keeps it.
func heldUnderOtherName(id string, live map[string]LiveObject) string {
	var names []string
	for name := range live {
		if name != id && strings.HasPrefix(name, id+"#") {
			names = append(names, strconv.Quote(name))
		}
	}
	if len(names) == 0 {
		return " \"rdmaform status\" lists what it holds."
	}
	sort.Strings(names)
	return fmt.Sprintf(" It holds %s under %s (a create_before_destroy replacement keeps the name it was made under): import that id.", AddressOf(id), strings.Join(names, ", "))
}

// withID is v with its id attribute set: an imported object's id is the
// agent's name for it, known when planning.
func withID(v cty.Value, id string) cty.Value {
	if v.IsNull() || !v.IsKnown() || v.IsMarked() || !v.Type().IsObjectType() || !v.Type().HasAttribute("id") {
		return v
	}
	m := v.AsValueMap()
	m["id"] = cty.StringVal(id)
	return cty.ObjectVal(m)
}

// AgentName is the name the agent holds a configuration's object at addr
// by, under the configuration's agent namespace ("" for none).
func AgentName(addr addrs.Instance, namespace string) string {
	if namespace == "" {
		return addr.String()
	}
	return addr.String() + "@" + namespace
}

// NamespaceOf is the agent namespace an agent name was made under (the
// inverse of AgentName's), "" for none. A # suffix, which a name taken
// because another object held the usual one carries, is not part of it. An
// instance key's "@" or "#" is inside the key's brackets, which a
// namespace never contains.
func NamespaceOf(name string) string {
	_, ns := splitAgentName(name)
	return ns
}

// AddressOf is the address part of an agent name: without its namespace
// and # suffix.
func AddressOf(name string) string {
	addr, _ := splitAgentName(name)
	return addr
}

func splitAgentName(name string) (addr, namespace string) {
	if i := strings.LastIndexByte(name, '#'); i >= 0 && !strings.ContainsAny(name[i:], `]"`) {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, '@'); i >= 0 && !strings.ContainsAny(name[i:], `]"`) {
		return name[:i], name[i+1:]
	}
	return name, ""
}
