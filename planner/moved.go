package planner

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// Move is an object the configuration's moved blocks relabel: the state
// records it at From, apply records it at To. The agent keeps holding it
// under the name it was made with (the state records that name).
type Move struct {
	From, To addrs.Instance
}

// applyMoves relabels the prior objects that moved blocks move, following
// chains (a to b, then b to c), and records each move in p.Moves. An
// object whose new address is already taken keeps its address, with a
// warning, as in Terraform. It returns the moves by old address.
func (p *Plan) applyMoves(cfg *config.Config, priors map[string]*prior) (map[addrs.Instance]addrs.Instance, hcl.Diagnostics) {
	if cfg == nil || len(priors) == 0 {
		return nil, nil
	}
	moves := append(cfg.Moved[:len(cfg.Moved):len(cfg.Moved)], impliedMoves(cfg, priors)...)
	if len(moves) == 0 {
		return nil, nil
	}
	var diags hcl.Diagnostics
	moved := map[addrs.Instance]addrs.Instance{}
	taken := map[addrs.Instance]bool{}
	for _, a := range sortedPriorAddrs(priors) {
		to := target(moves, a)
		if to == a {
			continue
		}
		if _, held := priors[to.String()]; held && target(moves, to) == to || taken[to] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Unresolved object address change",
				Detail: fmt.Sprintf("A moved block moves %s to %s, but the state already records an object there: %s keeps its address.", a, to, a)})
			continue
		}
		moved[a], taken[to] = to, true
	}
	// All leave, then all arrive: an object may move to where another
	// leaves from.
	leaving := make(map[addrs.Instance]*prior, len(moved))
	for from := range moved {
		leaving[from] = priors[from.String()]
		delete(priors, from.String())
	}
	for from, to := range moved {
		pr := leaving[from]
		priors[to.String()] = &prior{obj: movedTo(pr.obj, to), fields: pr.fields}
		p.Moves = append(p.Moves, Move{From: from, To: to})
	}
	// What depended on a moved object depends on it at its new address.
	stays := map[addrs.Resource]bool{}
	for _, pr := range priors {
		stays[pr.obj.Addr.Resource] = true
	}
	blocks := blockMoves(moved, stays)
	for key, pr := range priors {
		if deps, changed := MovedDependencies(pr.obj.Dependencies, moved, blocks); changed {
			o := *pr.obj
			o.Dependencies = deps
			priors[key] = &prior{obj: &o, fields: pr.fields}
		}
	}
	sortMoves(p.Moves)
	return moved, diags
}

// impliedMoves are Terraform's moves for a block that gained or lost
// count: its object at listener.l is listener.l[0] once the block has
// count, and listener.l[0] is listener.l once it has neither count nor
// for_each, unless a moved block says where the object goes or the state
// already records an object at the new address. Without them, adding
// count = 1 would replace the object, dropping its connections.
func impliedMoves(cfg *config.Config, priors map[string]*prior) []*config.Moved {
	var out []*config.Moved
	for _, pr := range priors {
		a := pr.obj.Addr
		r := cfg.Resources[a.Resource]
		if r == nil {
			continue
		}
		to := a
		switch {
		case a.Key == addrs.NoKey && r.Count != nil:
			to.Key = addrs.IntKey(0)
		case a.Key == addrs.IntKey(0) && r.Count == nil && r.ForEach == nil:
			to.Key = addrs.NoKey
		default:
			continue
		}
		if _, held := priors[to.String()]; held || target(cfg.Moved, a) != a {
			continue
		}
		out = append(out, &config.Moved{From: a, To: to})
	}
	return out
}

// movedTo is a copy of o at the address to, keeping the name the agent
// holds it by.
func movedTo(o *state.Object, to addrs.Instance) *state.Object {
	c := *o
	c.Addr = to
	c.Facts.AgentHandle = AgentHandle(o)
	return &c
}

// target follows the moved blocks from addr: each block applies at most
// once, so a cycle ends.
func target(moves []*config.Moved, addr addrs.Instance) addrs.Instance {
	used := make([]bool, len(moves))
	for {
		next := false
		for i, m := range moves {
			if used[i] {
				continue
			}
			if t, ok := m.Target(addr); ok {
				addr, used[i], next = t, true, true
				break
			}
		}
		if !next {
			return addr
		}
	}
}

// blockMoves maps the blocks whose objects all moved to one other block
// (and none stayed: stays holds the blocks with an object at its address
// after the moves) to that block: the state records dependencies on
// blocks (listener.loop for every instance of it).
func blockMoves(moved map[addrs.Instance]addrs.Instance, stays map[addrs.Resource]bool) map[addrs.Resource]addrs.Resource {
	out := map[addrs.Resource]addrs.Resource{}
	split := map[addrs.Resource]bool{}
	for from, to := range moved {
		if prev, ok := out[from.Resource]; ok && prev != to.Resource {
			split[from.Resource] = true
		}
		out[from.Resource] = to.Resource
	}
	for r := range out {
		if split[r] || stays[r] {
			delete(out, r)
		}
	}
	return out
}

// MovedDependencies returns deps with the moved objects' addresses (moved)
// and blocks' (blocks, for dependencies on whole blocks) replaced, and
// whether any was.
func MovedDependencies(deps []addrs.Instance, moved map[addrs.Instance]addrs.Instance, blocks map[addrs.Resource]addrs.Resource) ([]addrs.Instance, bool) {
	var out []addrs.Instance
	for i, d := range deps {
		to, ok := moved[d]
		if !ok && d.Key == nil {
			var r addrs.Resource
			if r, ok = blocks[d.Resource]; ok {
				to = addrs.Instance{Resource: r}
			}
		}
		if !ok {
			continue
		}
		if out == nil {
			out = append([]addrs.Instance(nil), deps...)
		}
		out[i] = to
	}
	if out == nil {
		return deps, false
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, true
}

// MovedState returns st with the plan's moves made, for apply, which
// looks up the objects it changes at their new addresses; st itself is not
// changed.
func (p *Plan) MovedState(st *state.State) *state.State {
	if st == nil || len(p.Moves) == 0 {
		return st
	}
	// Objects are never changed in place: the copy shares them.
	c := *st
	c.Objects = maps.Clone(st.Objects)
	out := &c
	moved := p.movedMap()
	// All leave, then all arrive (see applyMoves).
	for _, m := range p.Moves {
		out.RemoveObject(m.From)
	}
	for _, m := range p.Moves {
		o := st.Object(m.From)
		if o == nil {
			continue
		}
		out.SetObject(movedTo(o, m.To))
	}
	RedirectDependencies(out, moved)
	return out
}

// RedirectDependencies points the dependencies of st's objects at where
// the objects moved (moved: from -> to, the moves already made in st),
// and a dependency on a whole block at its new name when the block moved
// entirely: destroy orders its deletes by them. Objects are replaced, not
// changed in place.
func RedirectDependencies(st *state.State, moved map[addrs.Instance]addrs.Instance) {
	stays := map[addrs.Resource]bool{}
	for _, o := range st.Objects {
		stays[o.Addr.Resource] = true
	}
	blocks := blockMoves(moved, stays)
	for _, o := range st.Objects {
		if deps, changed := MovedDependencies(o.Dependencies, moved, blocks); changed {
			c := *o
			c.Dependencies = deps
			st.SetObject(&c)
		}
	}
}

func (p *Plan) movedMap() map[addrs.Instance]addrs.Instance {
	m := make(map[addrs.Instance]addrs.Instance, len(p.Moves))
	for _, mv := range p.Moves {
		m[mv.From] = mv.To
	}
	return m
}

func sortMoves(ms []Move) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].To.Less(ms[j].To) })
}

// movesOutsideTargets refuses a targeted plan that leaves out moved
// objects, as Terraform does: apply records every move, so the plan must
// show them.
func (p *Plan) movesOutsideTargets() hcl.Diagnostics {
	var missing []string
	for _, m := range p.Moves {
		if p.Change(m.To) == nil {
			missing = append(missing, fmt.Sprintf("  -target=%q", m.To.String()))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Moved objects excluded by targeting",
		Detail: "Objects in the state have moved to new addresses in the configuration (moved blocks). rdmaform must include them while planning, " +
			"but the -target options do not cover all of them.\n\nTo make a valid plan, either remove the -target options or add these:\n" + strings.Join(missing, "\n")}}
}
