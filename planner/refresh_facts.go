package planner

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// FactsReader is what a Refresher may also do: read the live facts of some
// objects. The refresh asks it for the endpoints that reconnected since the
// state recorded them, which are on a new QP and port.
type FactsReader interface {
	// Facts returns the facts of the objects with these agent handles
	// that the agent holds, keyed by handle.
	Facts(ctx context.Context, handles []string) (map[string]state.Facts, error)
}

// FactAttributes are the computed attributes facts give an object: id (the
// agent's handle, or addr when it has none), status, device, port_num,
// qp_num, local_address and local_port; null where the fact is unknown.
func FactAttributes(f state.Facts, addr addrs.Instance) map[string]cty.Value {
	id := f.AgentHandle
	if id == "" {
		id = addr.String()
	}
	str := func(s string) cty.Value {
		if s == "" {
			return cty.NullVal(cty.String)
		}
		return cty.StringVal(s)
	}
	num := func(n int64) cty.Value {
		if n == 0 {
			return cty.NullVal(cty.Number)
		}
		return cty.NumberIntVal(n)
	}
	return map[string]cty.Value{
		"id":            cty.StringVal(id),
		"status":        str(f.Status),
		"device":        str(f.Device),
		"port_num":      num(int64(f.PortNum)),
		"qp_num":        num(int64(f.QPNum)),
		"local_address": str(f.LocalAddr),
		"local_port":    num(int64(f.LocalPort)),
	}
}

// connectionFacts are the attributes a new connection changes.
var connectionFacts = []string{"device", "port_num", "qp_num", "local_address", "local_port"}

// refreshFacts brings the recorded facts up to date with the agent's:
// the endpoints that reconnected since the state recorded them (the agent
// counts their reconnects) get their new connection's facts, read in one
// more round trip, as do the endpoints whose status changed (one
// reconnecting holds no QP and no local port), and every other object
// whose status changed (a listener whose device went) its status. Each changed
// object becomes a drift "has changed", and its prior the refreshed
// object, so that what depends on its qp_num, local_port or status (an
// output, a check) is planned with the live values.
//
// A refresh-only plan, which the user asks for to bring the state up to
// date with the fabric, reads the facts of every object the agent holds,
// as Terraform's refresh reads every object: a state restored from a
// backup, or edited, gets the live QP numbers and ports back.
func (p *Plan) refreshFacts(ctx context.Context, r Refresher, live map[string]LiveObject, priors map[string]*prior) hcl.Diagnostics {
	fr, canRead := r.(FactsReader)
	readAll := canRead && p.RefreshOnly
	var handles []string
	byHandle := map[string]addrs.Instance{}
	statusChanged := map[string]bool{} // handles read because the status changed
	refreshed := map[addrs.Instance]state.Facts{}
	for _, pr := range priors { // most plans find none: no sorting first
		a, recorded := pr.obj.Addr, pr.obj.Facts
		h := AgentHandle(pr.obj)
		lo, held := live[h]
		held = held && lo.Agent == pr.obj.Agent
		switch {
		case !held || pr.null():
		case readAll:
			handles = append(handles, h)
			byHandle[h] = a
		case canRead && a.Kind == addrs.Endpoint && lo.Status == "established" && lo.Reconnects != recorded.Reconnects:
			handles = append(handles, h)
			byHandle[h] = a
		case recorded.Status != "" && lo.Status != "" && lo.Status != recorded.Status:
			if canRead && a.Kind == addrs.Endpoint {
				// An endpoint between connections holds no QP and no
				// local port: its facts say so, not the last ones.
				handles = append(handles, h)
				byHandle[h], statusChanged[h] = a, true
				continue
			}
			f := recorded
			f.Status = lo.Status
			refreshed[a] = f
		}
	}
	if len(handles) > 0 {
		facts, err := fr.Facts(ctx, handles)
		if err != nil {
			return hcl.Diagnostics{sourceless(hcl.DiagError, "Failed to refresh from the agent", err.Error())}
		}
		for _, h := range handles {
			// A reconnected endpoint not established again is gone or
			// down since the listing: the next plan sees it.
			if f, ok := facts[h]; ok && (readAll || statusChanged[h] || f.Status == "established") {
				refreshed[byHandle[h]] = f
			}
		}
	}
	addrList := make([]addrs.Instance, 0, len(refreshed))
	for a := range refreshed {
		addrList = append(addrList, a)
	}
	sort.Slice(addrList, func(i, j int) bool { return addrList[i].Less(addrList[j]) })
	var diags hcl.Diagnostics
	for _, a := range addrList {
		f, pr := refreshed[a], priors[a.String()]
		f.AgentHandle, f.CreateToken, f.CreatedAt, f.Deposed = pr.obj.Facts.AgentHandle, pr.obj.Facts.CreateToken, pr.obj.Facts.CreatedAt, pr.obj.Facts.Deposed
		v, changed := withFacts(pr.value(), f, a, byHandle[AgentHandle(pr.obj)] == a)
		if !changed {
			continue
		}
		np, d := refreshedPrior(pr, v, f)
		if d != nil {
			diags = append(diags, d)
			continue
		}
		p.Drift = append(p.Drift, Drift{Addr: a, Before: pr.value(), After: np.value(), Facts: f,
			BeforeSensitive: stringsToPaths(pr.obj.SensitiveAttributes), Status: f.Status})
		priors[a.String()] = np
	}
	return diags
}

// withFacts is v with the status the facts give and, for a new
// connection, its attributes (device, port, QP number, local address and
// port); changed says whether any of them differs.
func withFacts(v cty.Value, f state.Facts, a addrs.Instance, newConnection bool) (cty.Value, bool) {
	attrs := FactAttributes(f, a)
	m := v.AsValueMap()
	changed := false
	set := func(name string) {
		if old, ok := m[name]; ok && !old.RawEquals(attrs[name]) {
			m[name] = attrs[name]
			changed = true
		}
	}
	set("status")
	if newConnection {
		schema := config.Schema(a.Kind)
		for _, name := range connectionFacts {
			// Only what the fabric decides: a protection domain's device
			// is the configuration's, whatever the agent reports.
			if at := schema.Attribute(name); at != nil && at.Computed {
				set(name)
			}
		}
	}
	return cty.ObjectVal(m), changed
}

// refreshedPrior is pr's object with the refreshed value and facts,
// decoded as the state would hold it.
func refreshedPrior(pr *prior, v cty.Value, f state.Facts) (*prior, *hcl.Diagnostic) {
	ty := config.Schema(pr.obj.Addr.Kind).ImpliedType()
	raw, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return nil, sourceless(hcl.DiagError, "Failed to refresh from the agent", fmt.Sprintf("%s: the refreshed attributes could not be encoded: %v.", pr.obj.Addr, err))
	}
	o := pr.obj.DeepCopy()
	o.Attributes, o.Facts = raw, f
	return decodePrior(o, nestedCache{})
}
