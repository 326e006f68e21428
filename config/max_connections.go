package config

import (
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// EndpointsOverMaxConnections warns of a listener that more of the
// configuration's own endpoints connect to than its accept.max_connections
// admits: the agent rejects the connections over the limit, and apply
// fails for those endpoints. validate warns of every such listener; plan
// of those where keep (given the endpoints) says so: where it makes one.
func (cfg *Config) EndpointsOverMaxConnections(keep func([]addrs.Instance) bool) hcl.Diagnostics {
	type target struct {
		address   string
		port      int
		portSpace PortSpace
	}
	var limited []*Instance // few: not cfg.SortedInstances, which sorts every instance
	for _, inst := range cfg.Instances {
		if l := inst.Listener; l != nil && l.Accept.MaxConnections > 0 && inst.Known("address") && inst.Known("port") {
			limited = append(limited, inst)
		}
	}
	if len(limited) == 0 {
		return nil
	}
	sort.Slice(limited, func(i, j int) bool { return limited[i].Addr.Less(limited[j].Addr) })
	toward := map[target][]addrs.Instance{} // endpoints by what they connect to
	for a, inst := range cfg.Instances {
		if e := inst.Endpoint; e != nil && e.Address != "" && e.Port != 0 && inst.Known("address") && inst.Known("port") {
			t := target{e.Address, e.Port, e.PortSpace}
			toward[t] = append(toward[t], a)
		}
	}
	var diags hcl.Diagnostics
	for _, inst := range limited {
		l := inst.Listener
		var eps []addrs.Instance
		for t, as := range toward {
			if t.port == l.Port && t.portSpace == l.PortSpace && (t.address == l.Address || isWildcardAddress(l.Address)) {
				eps = append(eps, as...)
			}
		}
		if len(eps) <= l.Accept.MaxConnections || (keep != nil && !keep(eps)) {
			continue
		}
		rng := inst.Resource.DeclRange
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "More endpoints than the listener's max_connections",
			Detail: fmt.Sprintf("%d endpoints of this configuration connect to %s (%s), which accepts at most %d (accept.max_connections): the agent rejects the connections over the limit, and apply fails for those endpoints (REJECTED).",
				len(eps), inst.Addr, net.JoinHostPort(l.Address, strconv.Itoa(l.Port)), l.Accept.MaxConnections),
			Subject: &rng})
	}
	return diags
}

// isWildcardAddress reports whether a listener on address listens on
// every address of its family (0.0.0.0, ::).
func isWildcardAddress(address string) bool {
	ip, err := netip.ParseAddr(address)
	return err == nil && ip.IsUnspecified()
}
