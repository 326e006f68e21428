package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// Importer is a fabric that can adopt an object it already holds, as
// terraform import does.
type Importer interface {
	// Import reads the object the fabric holds as h.Name, checks that it
	// is what spec describes (saying which attributes differ if not), and
	// returns its facts, its create token included.
	Import(ctx context.Context, h Handle, spec Spec) (state.Facts, error)
}

// ErrNotImportable: the plan does not create the address, so there is
// nothing to import it as.
var ErrNotImportable = errors.New("not importable")

// Import records in the state, as the configuration's addr, the object the
// fabric holds under the name id: p (a plan of the configuration against
// the state) must create addr. The state records it as apply would have
// made it; the fabric checks that it matches the configuration.
func Import(ctx context.Context, p *planner.Plan, addr addrs.Instance, id string, opts Options) error {
	c := p.Change(addr)
	if c == nil || c.Action != planner.Create {
		return ErrNotImportable
	}
	im, ok := opts.Fabric.(Importer)
	if !ok {
		return fmt.Errorf("this fabric cannot import objects")
	}
	if missing := uncreatedDependencies(p, c); len(missing) > 0 {
		them := "them"
		if len(missing) == 1 {
			them = "it"
		}
		return fmt.Errorf("%s refers to %s, which the state does not hold: import %s first", addr, strings.Join(missing, ", "), them)
	}
	e := newExecutor(ctx, p, opts)
	inst, planned, err := resolveAfterApply(e.Config, addr, c.After, e.valueOf)
	if err != nil {
		return err
	}
	spec, pd, err := specFor(e.Config, e.byResource, inst, planned, e.lookupID)
	if err != nil {
		return err
	}
	facts, err := im.Import(ctx, Handle{Addr: addr, Name: id}, spec)
	if err != nil {
		return err
	}
	if facts.AgentHandle == "" {
		facts.AgentHandle = id
	}
	return e.record(c, appliedOf(planned, facts, pd, addr), facts)
}

// uncreatedDependencies lists the objects c depends on that p creates:
// they are not in the state, so an import of c must wait for theirs.
func uncreatedDependencies(p *planner.Plan, c *planner.Change) []string {
	deps := map[addrs.Resource]bool{}
	for _, d := range c.Dependencies {
		deps[d] = true
	}
	var out []string
	for _, o := range p.Changes {
		if o.Action.Creates() && deps[o.Addr.Resource] {
			out = append(out, o.Addr.String())
		}
	}
	return out
}
