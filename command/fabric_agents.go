package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// agentTimeout bounds reaching a remote agent and reading its objects: one
// that does not answer within it is reported, never waited for.
const agentTimeout = 5 * time.Second

// remoteConnectFunc reaches the agent an agent block describes.
type remoteConnectFunc func(ctx context.Context, a *config.Agent) (*fabricConn, error)

// dialRemoteAgent dials the agent an agent block describes, over mutual
// TLS: status dials this way; plan and apply through connectRemoteAgent.
func dialRemoteAgent(ctx context.Context, a *config.Agent) (*client.Client, error) {
	return client.DialRemote(ctx, remoteOf(a))
}

// remoteOf is how to reach the agent a describes.
func remoteOf(a *config.Agent) client.Remote {
	return client.Remote{Address: a.Address, CAFile: a.TLS.CAFile, CertFile: a.TLS.CertFile, KeyFile: a.TLS.KeyFile, ServerName: a.TLS.ServerName}
}

// connectRemoteAgent reaches a remote agent over mutual TLS, reading its
// TLS files through files.
func connectRemoteAgent(ctx context.Context, a *config.Agent, files *client.RemoteFiles) (*fabricConn, error) {
	c, err := files.Dial(ctx, remoteOf(a))
	if err != nil {
		return nil, err
	}
	return remoteFabric(c, c.Close), nil
}

// remoteFabric is a remote agent's client as the commands' fabric. Its
// devices, routes and addresses are its host's: the device checks ask the
// agent, never this host.
func remoteFabric(c pb.AgentClient, closeConn func() error) *fabricConn {
	f := agentfabric.NewRemote(c)
	return &fabricConn{Refresher: f, Devices: f, Fabric: f, CreateBeforeDestroy: true, Close: func() error {
		f.Close()
		if closeConn != nil {
			return closeConn()
		}
		return nil
	}}
}

// remoteConnector is how a command's run reaches remote agents: the TLS
// files they share are read once for all of them.
func (m Meta) remoteConnector() remoteConnectFunc {
	if m.ConnectRemote != nil {
		return m.ConnectRemote
	}
	files := &client.RemoteFiles{}
	return func(ctx context.Context, a *config.Agent) (*fabricConn, error) {
		return connectRemoteAgent(ctx, a, files)
	}
}

// agentLink is one agent of a fabric set: its connection and what it
// answered.
type agentLink struct {
	key     string
	address string // "" for the local agent, reached on its socket
	conn    *fabricConn
	err     error
}

func (l *agentLink) name() string {
	if l.key == "" {
		return "the local agent"
	}
	return fmt.Sprintf("%s (%s)", l.key, l.address)
}

// fabricSet is the fabric of several agents, as one: Live reads every
// agent at once, each call is routed to its handle's agent. It is what
// plan, apply and destroy use when the configuration has agent blocks.
type fabricSet struct {
	links map[string]*agentLink
	mu    sync.Mutex
	// holder is, for each handle Live found, the agent holding it, for
	// Facts to ask.
	holder map[string]string
}

var (
	_ apply.Fabric           = (*fabricSet)(nil)
	_ apply.Starter          = (*fabricSet)(nil)
	_ apply.DeleteStarter    = (*fabricSet)(nil)
	_ apply.Reconnecter      = (*fabricSet)(nil)
	_ apply.Importer         = (*fabricSet)(nil)
	_ planner.Refresher      = (*fabricSet)(nil)
	_ planner.AgentScope     = (*fabricSet)(nil)
	_ planner.FactsReader    = (*fabricSet)(nil)
	_ planner.ListenerReader = (*fabricSet)(nil)
)

// agentsNeeded are the agents a run acts through: those of the objects the
// configuration declares and the state records ("" for the local agent),
// limited with targets to the targeted objects and what they depend on
// (with destroy, what depends on them instead). Agents the state names but the configuration no
// longer declares are left out: they cannot be reached (the plan says
// so, if it must destroy their objects).
func agentsNeeded(cfg *config.Config, st *state.State, targets []addrs.Instance, destroy bool) map[string]bool {
	keys := map[string]bool{}
	if cfg == nil || len(cfg.Agents) == 0 {
		keys[""] = true // as before agent blocks: the local agent alone
		return keys
	}
	inScope := func(addrs.Instance) bool { return true }
	if len(targets) > 0 {
		blocks := targetedBlocks(cfg, st, targets, destroy)
		inScope = func(a addrs.Instance) bool { return blocks[a.Resource] }
	}
	for _, inst := range cfg.Instances {
		if inScope(inst.Addr) {
			keys[inst.Agent] = true
		}
	}
	if st != nil {
		for _, o := range st.Objects {
			if inScope(o.Addr) && (o.Agent == "" || cfg.Agents[o.Agent] != nil) {
				keys[o.Agent] = true
			}
		}
	}
	return keys
}

// targetedBlocks are the blocks of the targeted objects and those they
// depend on or, with destroy, those depending on them (in the
// configuration or the state), transitively: the objects a targeted plan
// changes.
func targetedBlocks(cfg *config.Config, st *state.State, targets []addrs.Instance, destroy bool) map[addrs.Resource]bool {
	deps := map[addrs.Resource][]addrs.Resource{}
	for _, r := range cfg.Resources {
		deps[r.Addr] = append(deps[r.Addr], r.DependsOn...)
	}
	if st != nil {
		for _, o := range st.Objects {
			for _, d := range o.Dependencies {
				deps[o.Addr.Resource] = append(deps[o.Addr.Resource], d.Resource)
			}
		}
	}
	dependents := map[addrs.Resource][]addrs.Resource{}
	for r, ds := range deps {
		for _, d := range ds {
			dependents[d] = append(dependents[d], r)
		}
	}
	in := map[addrs.Resource]bool{}
	var walk func(r addrs.Resource, next map[addrs.Resource][]addrs.Resource)
	walk = func(r addrs.Resource, next map[addrs.Resource][]addrs.Resource) {
		for _, n := range next[r] {
			if !in[n] {
				in[n] = true
				walk(n, next)
			}
		}
	}
	for _, t := range targets {
		in[t.Resource] = true
	}
	next := deps
	if destroy {
		next = dependents
	}
	for _, t := range targets {
		walk(t.Resource, next)
	}
	return in
}

// agentsOfPlan are the agents a saved plan acts through.
func agentsOfPlan(p *planner.Plan) map[string]bool {
	keys := map[string]bool{}
	for _, c := range p.Changes {
		if c.Action.Creates() || c.Action == planner.Update {
			keys[c.Agent] = true
		}
		if c.Action.Deletes() {
			keys[c.PriorAgent] = true
		}
	}
	for _, d := range p.Deposed {
		keys[d.Agent] = true
	}
	return keys
}

// connectAgents reaches the agents keys names, at once, each remote one
// within agentTimeout: the local one through connectLocal (the
// configured socket, starting an agent if mayStart says so), the others
// through their agent blocks. Without agent blocks it is connectLocal
// alone, as before they existed. The error names every agent that did
// not answer and what to do.
func connectAgents(cfg *config.Config, keys map[string]bool, connectLocal func() (*fabricConn, error), remote remoteConnectFunc) (*fabricConn, error) {
	if len(keys) == 1 && keys[""] {
		return connectLocal()
	}
	set := &fabricSet{links: map[string]*agentLink{}}
	var wg sync.WaitGroup
	for k := range keys {
		l := &agentLink{key: k}
		set.links[k] = l
		if k != "" {
			l.address = cfg.Agents[k].Address
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k == "" {
				l.conn, l.err = connectLocal()
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
			defer cancel()
			l.conn, l.err = remote(ctx, cfg.Agents[k])
			if l.err == nil && ctx.Err() != nil {
				l.err = fmt.Errorf("no answer within %s", agentTimeout)
			}
		}()
	}
	wg.Wait()
	var failed []*agentLink
	for _, l := range set.links {
		if l.err != nil {
			failed = append(failed, l)
		}
	}
	if len(failed) > 0 {
		err := unreachableAgents(failed)
		if l := set.links[""]; l != nil && l.conn != nil && l.conn.StopStarted != nil {
			err = fmt.Errorf("%w\n\n%s", err, l.conn.StopStarted()) // the command fails
		}
		set.close()
		return nil, err
	}
	return set.conn(), nil
}

// unreachableAgents is the error of agents that did not answer: an
// agent's objects are never read as gone because it is silent.
func unreachableAgents(failed []*agentLink) error {
	sort.Slice(failed, func(i, j int) bool { return failed[i].key < failed[j].key })
	var lines []string
	for _, l := range failed {
		lines = append(lines, fmt.Sprintf("%s does not answer: %v", l.name(), l.err))
	}
	return errors.New(strings.Join(lines, "\n") + "\n\nIts objects are not read as gone: nothing is planned. Start or fix that agent (its address and tls settings, the network to it), or with -target limit the run to objects on other agents; \"rdmaform plan -refresh=false\" plans from the state as recorded, without reading the live fabric.")
}

// conn is the set as the commands' fabric connection.
func (s *fabricSet) conn() *fabricConn {
	fc := &fabricConn{Refresher: s, Fabric: s, Close: s.close, CreateBeforeDestroy: true, DevicesOf: s.devicesOf}
	for _, l := range s.links {
		fc.CreateBeforeDestroy = fc.CreateBeforeDestroy && l.conn.CreateBeforeDestroy
	}
	if l := s.links[""]; l != nil {
		fc.Agent = l.conn.Agent // a saved plan checks the local agent's run
		fc.StopStarted = l.conn.StopStarted
	}
	return fc
}

func (s *fabricSet) close() error {
	for _, l := range s.links {
		if l.conn != nil && l.conn.Close != nil {
			l.conn.Close()
		}
	}
	return nil
}

func (s *fabricSet) devicesOf(agent string) planner.DeviceInfo {
	if l := s.links[agent]; l != nil {
		return l.conn.Devices
	}
	return nil
}

// Reads says whose objects Live reads: the agents of the set.
func (s *fabricSet) Reads(agent string) bool { return s.links[agent] != nil }

// Live reads every agent at once, each remote one within agentTimeout,
// and answers with all their objects, each naming its agent. An agent
// that does not answer fails the whole: its objects must not read as
// gone.
func (s *fabricSet) Live(ctx context.Context) (map[string]planner.LiveObject, error) {
	type answer struct {
		live map[string]planner.LiveObject
		err  error
	}
	answers := map[string]*answer{}
	var wg sync.WaitGroup
	for k, l := range s.links {
		a := &answer{}
		answers[k] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx := ctx
			if k != "" {
				var cancel context.CancelFunc
				actx, cancel = context.WithTimeout(ctx, agentTimeout)
				defer cancel()
			}
			a.live, a.err = l.conn.Refresher.Live(actx)
			if a.err != nil && actx.Err() != nil && ctx.Err() == nil {
				a.err = fmt.Errorf("no answer within %s", agentTimeout)
			}
		}()
	}
	wg.Wait()
	var failed []*agentLink
	n := 0
	for _, a := range answers {
		n += len(a.live)
	}
	// Sized at once: 10,000 objects grown into a map one by one rehash
	// it a dozen times.
	out := make(map[string]planner.LiveObject, n)
	holder := make(map[string]string, n)
	for _, k := range s.keys() {
		a := answers[k]
		if a.err != nil {
			failed = append(failed, &agentLink{key: k, address: s.links[k].address, err: a.err})
			continue
		}
		for h, lo := range a.live {
			if _, taken := out[h]; taken {
				continue // the first agent's, in key order: names are unique per state
			}
			lo.Agent = k
			out[h] = lo
			holder[h] = k
		}
	}
	if len(failed) > 0 {
		return nil, unreachableAgents(failed)
	}
	s.mu.Lock()
	s.holder = holder
	s.mu.Unlock()
	return out, nil
}

func (s *fabricSet) keys() []string {
	keys := make([]string, 0, len(s.links))
	for k := range s.links {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Facts asks each agent, all at once, for the facts of the objects Live
// found it holds: a refresh-only plan, or one after a host's endpoints
// reconnected, reads many agents, and one after another their round
// trips would add up.
func (s *fabricSet) Facts(ctx context.Context, handles []string) (map[string]state.Facts, error) {
	s.mu.Lock()
	byAgent := map[string][]string{}
	for _, h := range handles {
		if k, ok := s.holder[h]; ok {
			byAgent[k] = append(byAgent[k], h)
		}
	}
	s.mu.Unlock()
	keys := make([]string, 0, len(byAgent))
	for k := range byAgent {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	answers := make([]map[string]state.Facts, len(keys))
	err := s.askEach(keys, func(i int, l *agentLink) (err error) {
		if fr, ok := l.conn.Refresher.(planner.FactsReader); ok {
			answers[i], err = fr.Facts(ctx, byAgent[keys[i]])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]state.Facts, len(handles))
	for _, facts := range answers {
		for h, f := range facts {
			out[h] = f
		}
	}
	return out, nil
}

// Listeners lists every agent's listeners, all at once, each naming its
// agent.
func (s *fabricSet) Listeners(ctx context.Context) ([]planner.LiveListener, error) {
	keys := s.keys()
	answers := make([][]planner.LiveListener, len(keys))
	err := s.askEach(keys, func(i int, l *agentLink) (err error) {
		if lr, ok := l.conn.Refresher.(planner.ListenerReader); ok {
			answers[i], err = lr.Listeners(ctx)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []planner.LiveListener
	for i, ls := range answers {
		for _, l := range ls {
			l.Agent = keys[i]
			out = append(out, l)
		}
	}
	return out, nil
}

// askEach calls ask for each of keys' agents at once, and returns the
// error of the first agent in keys that failed, naming it.
func (s *fabricSet) askEach(keys []string, ask func(i int, l *agentLink) error) error {
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ask(i, s.links[k])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: %w", s.links[keys[i]].name(), err)
		}
	}
	return nil
}

// fabric is the fabric of h's agent.
func (s *fabricSet) fabric(h apply.Handle) (apply.Fabric, error) {
	if l := s.links[h.Agent]; l != nil {
		return l.conn.Fabric, nil
	}
	return nil, fmt.Errorf("%s is on %s, which this run did not connect to", h.Addr, planner.AgentLabel(h.Agent))
}

func (s *fabricSet) Create(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (state.Facts, error) {
	f, err := s.fabric(h)
	if err != nil {
		return state.Facts{}, err
	}
	return f.Create(ctx, h, spec, token)
}

func (s *fabricSet) Update(ctx context.Context, h apply.Handle, spec apply.Spec, changed []cty.Path) (state.Facts, error) {
	f, err := s.fabric(h)
	if err != nil {
		return state.Facts{}, err
	}
	return f.Update(ctx, h, spec, changed)
}

func (s *fabricSet) Delete(ctx context.Context, h apply.Handle, token string) error {
	f, err := s.fabric(h)
	if err != nil {
		return err
	}
	return f.Delete(ctx, h, token)
}

// StartCreate starts the create on h's agent; an agent's fabric that
// cannot start one creates it while the caller waits.
func (s *fabricSet) StartCreate(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (func() (state.Facts, error), error) {
	f, err := s.fabric(h)
	if err != nil {
		return nil, err
	}
	if st, ok := f.(apply.Starter); ok {
		return st.StartCreate(ctx, h, spec, token)
	}
	if ctx.Err() != nil {
		return nil, apply.ErrNotStarted
	}
	facts, err := f.Create(context.WithoutCancel(ctx), h, spec, token)
	return func() (state.Facts, error) { return facts, err }, nil
}

// StartDelete queues the delete on h's agent, or deletes at once.
func (s *fabricSet) StartDelete(ctx context.Context, h apply.Handle, token string) (func() error, error) {
	f, err := s.fabric(h)
	if err != nil {
		return nil, err
	}
	if ds, ok := f.(apply.DeleteStarter); ok {
		return ds.StartDelete(ctx, h, token)
	}
	err = f.Delete(ctx, h, token)
	return func() error { return err }, nil
}

func (s *fabricSet) AwaitReconnect(ctx context.Context, h apply.Handle, spec apply.Spec, reconnects int) (state.Facts, error) {
	f, err := s.fabric(h)
	if err != nil {
		return state.Facts{}, err
	}
	rc, ok := f.(apply.Reconnecter)
	if !ok {
		return state.Facts{}, fmt.Errorf("%s cannot wait for an endpoint's reconnection", planner.AgentLabel(h.Agent))
	}
	return rc.AwaitReconnect(ctx, h, spec, reconnects)
}

func (s *fabricSet) Import(ctx context.Context, h apply.Handle, spec apply.Spec) (state.Facts, error) {
	f, err := s.fabric(h)
	if err != nil {
		return state.Facts{}, err
	}
	im, ok := f.(apply.Importer)
	if !ok {
		return state.Facts{}, fmt.Errorf("%s cannot import objects", planner.AgentLabel(h.Agent))
	}
	return im.Import(ctx, h, spec)
}

// Reads says whose objects the fetch read: a fabric set's agents, or
// else the local agent's.
func (f *liveFetch) Reads(agent string) bool {
	<-f.done
	if f.scope != nil {
		return f.scope.Reads(agent)
	}
	return agent == ""
}

// devicesFor is what the planner asks for each agent's devices.
func (c *fabricConn) devicesFor() func(agent string) planner.DeviceInfo {
	if c.DevicesOf != nil {
		return c.DevicesOf
	}
	if c.Devices == nil {
		return nil
	}
	return func(agent string) planner.DeviceInfo {
		if agent == "" {
			return c.Devices
		}
		return nil
	}
}

// connectFabric reaches the agents the session acts through with cfg
// (see agentsNeeded), targets limiting them; the local agent through
// connect. stateRead, when not nil, is closed once the state is read (it
// names agents too); it may be called while the session is being opened,
// so it is given cfg rather than reading the session's.
func (se *session) connectFabric(cfg *config.Config, connect connectFunc, notify io.Writer, mayStart func() bool, opts sessionOptions, stateRead <-chan struct{}) (*fabricConn, error) {
	socket := (&session{cfg: cfg}).agentSocket()
	local := func() (*fabricConn, error) {
		return connect(context.Background(), socket, notify, mayStart)
	}
	var st *state.State // without agent blocks, the local agent alone: not needed
	switch {
	case stateRead == nil:
		st = se.prior
	case cfg != nil && len(cfg.Agents) > 0:
		<-stateRead
		st = se.prior
	}
	remote := se.s.remoteConnector()
	if se.early != nil {
		remote = se.early.connect
	}
	return connectAgents(cfg, agentsNeeded(cfg, st, opts.targets, opts.destroy), local, remote)
}

// writeGoneAgents says which agents went during the apply, when any is a
// remote one: no operation started on them after, while the others' went
// on. It reports whether it wrote.
func (se *session) writeGoneAgents(r *apply.Report, finish string) bool {
	remote := false
	var names []string
	for _, k := range r.GoneAgents {
		remote = remote || k != ""
		l := &agentLink{key: k}
		if se.cfg != nil && se.cfg.Agents[k] != nil {
			l.address = se.cfg.Agents[k].Address
		}
		names = append(names, l.name())
	}
	if !remote {
		return false
	}
	fmt.Fprintf(se.s.Err, "\nStopped on %s: its agent stopped answering, so no further operation was started there;\nthose on the other agents went on. The state records everything that completed.%s\nRun %q again once the agent answers, or with -target limit it to objects on other agents.\n",
		strings.Join(names, ", "), listed("Not started", r.NotStarted), finish)
	return true
}
