package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
		return fmt.Errorf("%s refers to %s, which the state does not hold: import %s first, or, if the agent does not hold %s either, make %s with \"rdmaform apply -target=%s\"", addr, strings.Join(missing, ", "), them, them, them, strings.Join(missing, " -target="))
	}
	_, err := newExecutor(ctx, p, opts).adopt(ctx, im, c, id)
	return err
}

// adopt imports the object the fabric holds as id as c's address and
// records it.
func (e *executor) adopt(ctx context.Context, im Importer, c *planner.Change, id string) (applied, error) {
	inst, planned, err := resolveAfterApply(e.Config, c.Addr, c.AfterValue(), e.valueOf)
	if err != nil {
		return applied{}, err
	}
	spec, pd, err := specFor(e.Config, e.byResource, inst, planned, e.lookupID, e.valueOf)
	if err != nil {
		return applied{}, err
	}
	facts, err := im.Import(ctx, Handle{Addr: c.Addr, Name: id, Agent: c.Agent}, spec)
	if err != nil {
		return applied{}, err
	}
	if facts.AgentHandle == "" && id != c.Addr.String() {
		facts.AgentHandle = id
	}
	final := appliedOf(planned, facts, pd, c.Addr)
	return final, e.record(c, final, facts)
}

// importObject carries out an import block's import: c's object is adopted,
// not made.
func (e *executor) importObject(ctx context.Context, c *planner.Change) error {
	im, ok := e.Fabric.(Importer)
	if !ok {
		return OpError{c.Addr, "import", errors.New("this fabric cannot import objects")}
	}
	start := time.Now()
	e.started(c.Addr, "", "import", "id="+c.ImportID, fmt.Sprintf("%s: Importing... [id=%s]", c.Addr, c.ImportID))
	final, err := e.adopt(e.noCancel, im, c, c.ImportID)
	if err != nil {
		var oe OpError
		if errors.As(err, &oe) {
			return err // the record failed
		}
		e.errored(c.Addr, "", "import", time.Since(start))
		return OpError{c.Addr, "import", err}
	}
	e.setID(c.Addr, final)
	e.done(c.Addr, "", "import", time.Since(start), "id="+c.ImportID, fmt.Sprintf("%s: Import complete [id=%s]", c.Addr, c.ImportID))
	return e.postconditions(c.Addr, e.Config.Instances[c.Addr], final)
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
