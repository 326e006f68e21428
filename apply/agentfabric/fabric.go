package agentfabric

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Fabric is the agent seen as plan and apply need it.
type Fabric struct {
	agent pb.AgentClient
	// MaxConnecting bounds the endpoints created but not yet established
	// (or failed) at once; StartCreate waits for room. Fewer in flight
	// than the agent resolves at once (1,000) leaves it idle between
	// answers: 128 made an apply of 1,000 endpoints 1.4 times slower.
	MaxConnecting int

	watchOnce sync.Once
	watch     *watcher
	watchErr  error

	batch       batcher
	deletes     deleter
	connectOnce sync.Once
	connecting  chan struct{}

	// remote: the agent runs on another host, which answers plan's
	// device questions itself (remote.go).
	remote *remoteRoutes
}

var (
	_ apply.Fabric        = (*Fabric)(nil)
	_ apply.Starter       = (*Fabric)(nil)
	_ apply.DeleteStarter = (*Fabric)(nil)
	_ planner.Refresher   = (*Fabric)(nil)
	_ planner.DeviceInfo  = (*Fabric)(nil)
	_ planner.FactsReader = (*Fabric)(nil)
)

// New adapts an agent client (client.Client embeds pb.AgentClient).
func New(a pb.AgentClient) *Fabric {
	return &Fabric{agent: a, MaxConnecting: DefaultMaxConnecting}
}

// DefaultMaxConnecting is New's MaxConnecting.
const DefaultMaxConnecting = 1000

// Close stops the change stream, if one was started.
func (f *Fabric) Close() {
	if f.watch != nil {
		f.watch.cancel()
	}
}

// Live lists what the agent holds, in one round trip. It asks for the
// summary as a table (columns rather than a message per object: ten times
// cheaper to decode for 10,000 objects), and reads objects from an agent
// that answers without one.
func (f *Fabric) Live(ctx context.Context) (map[string]planner.LiveObject, error) {
	r, err := f.agent.List(ctx, &pb.ListRequest{Table: true, Filter: &pb.Filter{Kinds: managedKinds}})
	if err != nil {
		return nil, fmt.Errorf("listing the agent's objects: %w", rpcError(err))
	}
	if t := r.GetTable(); t != nil {
		out := make(map[string]planner.LiveObject, t.Len())
		for i := range t.Len() {
			row := t.Row(i)
			if row.Kind != pb.Kind_CONNECTION { // accepted by a listener, not managed on their own
				out[row.Address] = planner.LiveObject{Token: row.Token, Status: statusWord(row.Status), Reconnects: int(row.Reconnects), Connections: int(row.Connections), Error: errorWords(row.LastError)}
			}
		}
		return out, nil
	}
	out := make(map[string]planner.LiveObject, len(r.Objects))
	for _, o := range r.Objects {
		if o.Kind != pb.Kind_CONNECTION {
			out[o.Address] = planner.LiveObject{Token: o.Token, Status: statusWord(o.Status), Reconnects: int(o.Reconnects), Connections: int(o.Connections), Error: errorWords(o.LastError)}
		}
	}
	return out, nil
}

// managedKinds are the kinds of objects rdmaform manages: not the
// connections listeners accept.
var managedKinds = []pb.Kind{pb.Kind_PROTECTION_DOMAIN, pb.Kind_LISTENER, pb.Kind_ENDPOINT}

// maxFactPrefixes is how many handles Facts asks the agent for by name.
const maxFactPrefixes = 64

// Facts reads the facts of the objects with these handles, in one round
// trip: the refresh asks for the endpoints that reconnected.
func (f *Fabric) Facts(ctx context.Context, handles []string) (map[string]state.Facts, error) {
	filter := &pb.Filter{Prefixes: handles, Kinds: managedKinds}
	if len(handles) > maxFactPrefixes {
		// The agent matches each object against each prefix: for many
		// (a refresh-only plan asks for every object), all of them,
		// picked below, cost less.
		filter.Prefixes = nil
	}
	r, err := f.agent.List(ctx, &pb.ListRequest{Full: true, Filter: filter})
	if err != nil {
		return nil, fmt.Errorf("reading the facts of the agent's objects: %w", rpcError(err))
	}
	want := make(map[string]bool, len(handles))
	for _, h := range handles {
		want[h] = true
	}
	out := make(map[string]state.Facts, len(handles))
	for _, o := range r.Objects {
		if want[o.Address] { // a prefix also matches endpoint.a1 for endpoint.a
			out[o.Address] = f.factsOf(o)
		}
	}
	return out, nil
}

// Devices lists the agent's devices with their limits.
func (f *Fabric) Devices(ctx context.Context) ([]planner.Device, error) {
	r, err := f.agent.Devices(ctx, &pb.DevicesRequest{})
	if err != nil {
		return nil, err
	}
	out := make([]planner.Device, 0, len(r.Devices))
	for _, d := range r.Devices {
		dev := planner.Device{Name: d.Name}
		if d.Limits != nil {
			dev.MaxQPWR, dev.MaxSGE, dev.MaxCQE = int(d.Limits.MaxQpWr), int(d.Limits.MaxSge), int(d.Limits.MaxCqe)
			dev.MaxQPRdAtom, dev.MaxQPInitRdAtom = int(d.Limits.MaxQpRdAtom), int(d.Limits.MaxQpInitRdAtom)
			dev.MaxSRQ, dev.MaxSRQWR, dev.MaxSRQSGE = int(d.Limits.MaxSrq), int(d.Limits.MaxSrqWr), int(d.Limits.MaxSrqSge)
		}
		if len(d.Ports) > 0 {
			dev.LinkLayer = d.Ports[0].LinkLayer
		}
		out = append(out, dev)
	}
	return out, nil
}

// IsLocal reports whether ip is an address of the agent's host: this
// one, for an agent on the local socket; a remote agent says.
func (f *Fabric) IsLocal(ip netip.Addr) bool {
	if f.remote != nil {
		return f.remote.isLocal(f.agent, ip)
	}
	return planner.IsLocalAddress(ip)
}

// DeviceFor names the RDMA device serving address on the agent's host:
// read here for an agent on the local socket (route.go), asked of a
// remote agent.
func (f *Fabric) DeviceFor(ctx context.Context, address string) (string, error) {
	if f.remote != nil {
		return f.remote.deviceFor(ctx, f.agent, address)
	}
	return deviceFor(address)
}

// Create makes the object and, for an endpoint, waits until it is
// established.
func (f *Fabric) Create(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (state.Facts, error) {
	address := h.Name
	var o *pb.Object
	var err error
	switch {
	case spec.ProtectionDomain != nil:
		o, err = f.agent.CreateProtectionDomain(ctx, &pb.CreateProtectionDomainRequest{Address: address, Token: token,
			Spec: &pb.ProtectionDomainSpec{Device: spec.ProtectionDomain.Device}})
	case spec.Listener != nil:
		o, err = f.agent.CreateListener(ctx, &pb.CreateListenerRequest{Address: address, Token: token, Spec: listenerSpec(spec.Listener)})
	case spec.Endpoint != nil:
		return f.createEndpoint(ctx, address, spec.Endpoint, token)
	default:
		return state.Facts{}, fmt.Errorf("empty spec")
	}
	if err != nil {
		return state.Facts{}, rpcError(err)
	}
	if failed(o) {
		err := objectError(o)
		f.agent.Delete(ctx, &pb.DeleteRequest{Address: address})
		return state.Facts{}, err
	}
	return f.factsOf(o), nil
}

// StartCreate registers the object and returns how to wait for it: for an
// endpoint, until it is established (apply then holds no parallelism slot
// while the endpoint connects); for the others, nothing is left to wait
// for. Endpoint creates issued concurrently share CreateEndpoints calls.
func (f *Fabric) StartCreate(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (func() (state.Facts, error), error) {
	stop := ctx.Done()
	ctx = context.WithoutCancel(ctx) // the walk stopping does not cut the call short
	if spec.Endpoint == nil {
		facts, err := f.Create(ctx, h, spec, token)
		if err != nil {
			return nil, err
		}
		return func() (state.Facts, error) { return facts, nil }, nil
	}
	return f.startEndpoint(ctx, stop, h.Name, spec.Endpoint, token)
}

func (f *Fabric) createEndpoint(ctx context.Context, address string, e *config.Endpoint, token string) (state.Facts, error) {
	wait, err := f.startEndpoint(ctx, nil, address, e, token)
	if err != nil {
		return state.Facts{}, err
	}
	return wait()
}

// startEndpoint waits for room among the endpoints connecting (giving up
// with apply.ErrNotStarted once stop is closed), subscribes to the
// endpoint's changes and queues its create for the next CreateEndpoints
// call; it returns at once, with the
// wait for the call's answer and then for the endpoint to be established.
// So apply's parallelism slots are not held while creates are batched:
// the adapter itself makes one CreateEndpoints call at a time.
func (f *Fabric) startEndpoint(ctx context.Context, stop <-chan struct{}, address string, e *config.Endpoint, token string) (func() (state.Facts, error), error) {
	if err := f.watching(ctx); err != nil {
		return nil, err
	}
	f.connectOnce.Do(func() { f.connecting = make(chan struct{}, max(f.MaxConnecting, 1)) })
	select {
	case f.connecting <- struct{}{}:
	case <-stop:
		return nil, apply.ErrNotStarted
	}
	updates := f.watch.subscribe(address)
	req := &pb.CreateEndpointRequest{Address: address, Token: token, Spec: endpointSpec(e)}
	answer := f.batch.enqueue(ctx, f.agent, req)
	return func() (state.Facts, error) {
		defer func() { <-f.connecting }()
		defer f.watch.unsubscribe(address)
		<-answer.done
		o, err := answer.obj, answer.err
		if err != nil {
			return state.Facts{}, rpcError(err)
		}
		if established(o) && o.Facts == nil {
			// A retry found the endpoint already made; the batch's
			// summary lacks its facts, which the single call
			// (idempotent) returns.
			if full, err := f.agent.CreateEndpoint(ctx, req); err == nil {
				o = full
			}
		}
		return f.waitEstablished(ctx, stop, address, e, o, updates)
	}, nil
}

// watching starts, once, the change stream every wait of this fabric
// reads (see watcher), and says whether it runs.
func (f *Fabric) watching(ctx context.Context) error {
	f.watchOnce.Do(func() { f.watch, f.watchErr = startWatcher(context.WithoutCancel(ctx), f.agent) })
	if f.watchErr != nil {
		return fmt.Errorf("watching the agent: %w", rpcError(f.watchErr))
	}
	return nil
}

// factsGrace bounds the wait for an established endpoint's facts.
var factsGrace = 2 * time.Second

// waitEstablished waits for the endpoint to be established and returns
// its facts. Once stop is closed (Ctrl-C), an endpoint not yet
// established is not waited for: it is deleted, as a failed one is, and
// the error wraps apply.ErrCancelled. A connect to a peer that never
// answers would otherwise hold the interrupt for the whole wait.
func (f *Fabric) waitEstablished(ctx context.Context, stop <-chan struct{}, address string, e *config.Endpoint, o *pb.Object, updates <-chan *pb.Object) (state.Facts, error) {
	wait := connectWait(e)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var grace <-chan time.Time // running while established without facts
	for {
		switch {
		case established(o) && o.Facts != nil:
			return f.factsOf(o), nil
		case established(o) && grace == nil:
			// The agent reports ESTABLISHED first and the facts (QP
			// number, local address) in the next change, which the state
			// records: wait a little for it.
			g := time.NewTimer(factsGrace)
			defer g.Stop()
			grace = g.C
		case failed(o):
			err := objectError(o)
			f.agent.Delete(ctx, &pb.DeleteRequest{Address: address})
			return state.Facts{}, err
		}
		select {
		case next, ok := <-updates:
			if !ok {
				if established(o) {
					return f.factsOf(o), nil
				}
				return state.Facts{}, streamEnded(address, f.watch.err())
			}
			if next.Revision >= o.Revision {
				o = next
			}
		case <-grace:
			return f.factsOf(o), nil
		case <-stop:
			if established(o) {
				stop = nil // only its facts are awaited: a moment more
				continue
			}
			f.agent.Delete(ctx, &pb.DeleteRequest{Address: address})
			return state.Facts{}, fmt.Errorf("%w while it was %s: the agent dropped it%s", apply.ErrCancelled, statusWord(o.Status), lastErrorSuffix(o))
		case <-timer.C:
			err := fmt.Errorf("not established after %v (status %s%s)", wait, statusWord(o.Status), lastErrorSuffix(o))
			f.agent.Delete(ctx, &pb.DeleteRequest{Address: address})
			return state.Facts{}, err
		}
	}
}

// waitGrace is what connectWait allows beyond the agent's own bounds.
const waitGrace = 10 * time.Second

// connectWait bounds the wait for an endpoint to connect: the agent's
// bounds (address and route resolution, each up to connect.timeout, then
// timeouts.create for ESTABLISHED) and some grace, so that the agent's
// reason for giving up, not this wait's, reaches the user.
func connectWait(e *config.Endpoint) time.Duration {
	resolve, establish := e.Connect.Timeout, e.CreateTimeout
	if resolve == 0 {
		resolve = 2 * time.Second
	}
	if establish == 0 {
		establish = 30 * time.Second
	}
	return 2*resolve + establish + waitGrace
}

// Update changes in place what the agent can change live.
func (f *Fabric) Update(ctx context.Context, h apply.Handle, spec apply.Spec, changed []cty.Path) (state.Facts, error) {
	req := &pb.UpdateRequest{Address: h.Name}
	for _, p := range changed {
		name := pathString(p)
		switch {
		case strings.HasPrefix(name, "reconnect") && spec.Endpoint != nil:
			req.SetReconnect, req.Reconnect = true, reconnectSpec(spec.Endpoint.Reconnect)
		case strings.HasPrefix(name, "probe") && spec.Endpoint != nil:
			req.SetProbe, req.Probe = true, probeSpec(spec.Endpoint.Probe)
		case strings.HasPrefix(name, "timeouts"):
			// Only the next create reads it: nothing changes live.
		case name == "accept.max_connections" && spec.Listener != nil:
			req.SetMaxConnections, req.MaxConnections = true, uint32(spec.Listener.Accept.MaxConnections)
		default:
			return state.Facts{}, fmt.Errorf("%s cannot be changed in place by the agent (it changes reconnect, probe and accept.max_connections)", name)
		}
	}
	o, err := f.agent.Update(ctx, req)
	if err != nil {
		return state.Facts{}, rpcError(err)
	}
	return f.factsOf(o), nil
}

// Delete disconnects and destroys the object; what is gone already is
// fine. Deletes made concurrently share DeleteMany calls.
func (f *Fabric) Delete(ctx context.Context, h apply.Handle, token string) error {
	wait, _ := f.StartDelete(ctx, h, token)
	return wait()
}

// StartDelete queues the delete for the next DeleteMany call and returns
// how to wait for its outcome, which is Delete's.
func (f *Fabric) StartDelete(ctx context.Context, h apply.Handle, token string) (func() error, error) {
	p := f.deletes.enqueue(ctx, f.agent, h.Name)
	return func() error {
		<-p.done
		if p.err != nil {
			return rpcError(p.err)
		}
		return nil
	}, nil
}

func established(o *pb.Object) bool {
	return o.Status == pb.Status_ESTABLISHED || o.Status == pb.Status_DEGRADED
}

// failed: the agent gave up, or the first attempt failed and the endpoint
// would only retry (apply reports the failure rather than waiting out the
// back-off).
func failed(o *pb.Object) bool {
	switch o.Status {
	case pb.Status_ERROR, pb.Status_REJECTED:
		return true
	case pb.Status_RECONNECTING, pb.Status_DISCONNECTED:
		return o.LastError != nil
	}
	return false
}

func statusWord(s pb.Status) string { return strings.ToLower(s.String()) }

// CallError is a failure the agent attributes to a librdmacm call.
type CallError struct {
	Call    string
	Errno   syscall.Errno
	Name    string // "ECONNREFUSED"
	Message string
	Reason  string // the peer's reject reason, if any
}

func (e *CallError) Error() string {
	var parts []string
	if e.Call != "" {
		parts = append(parts, e.Call)
	}
	if e.Errno != 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", e.Errno.Error(), e.Name))
	}
	if m := e.detail(); m != "" {
		parts = append(parts, m)
	}
	var b strings.Builder
	b.WriteString(strings.Join(parts, ": "))
	if e.Reason != "" && !strings.Contains(b.String(), e.Reason) {
		b.WriteString(" (rejected: " + e.Reason + ")")
	}
	return b.String()
}

// detail is what the agent's message adds to the call and errno: the
// agent's messages name them too, before what they add ("rdma_bind_addr:
// no such device (ENODEV): this host has no RDMA device...") or after
// ("...: invalid argument"), which the error would otherwise say twice.
func (e *CallError) detail() string {
	m := strings.TrimPrefix(e.Message, e.Call+": ")
	if e.Errno != 0 {
		text := e.Errno.Error()
		for _, said := range []string{text + " (" + e.Name + ")", text} {
			if m == said {
				return ""
			}
			m = strings.TrimSuffix(m, ": "+said)
			m = strings.TrimPrefix(m, said+": ")
		}
	}
	return m
}

func (e *CallError) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

func objectError(o *pb.Object) error {
	if le := o.LastError; le != nil {
		return &CallError{Call: le.Call, Errno: syscall.Errno(le.Errno), Name: le.ErrnoName, Message: le.Message, Reason: o.RejectReason}
	}
	if o.RejectReason != "" {
		return &CallError{Call: "rdma_connect", Message: "rejected by the peer", Reason: o.RejectReason}
	}
	return fmt.Errorf("the agent reports status %s", statusWord(o.Status))
}

func lastErrorSuffix(o *pb.Object) string {
	if o.LastError == nil {
		return ""
	}
	return "; last error: " + objectError(o).Error()
}

// agentGone is the error of a call the agent did not answer because it
// stopped or is stopping (gRPC's Unavailable): apply then starts no
// further operation.
type agentGone struct {
	detail string
	err    error // the call's, kept underneath
}

func (e *agentGone) Error() string {
	return fmt.Sprintf("the agent stopped (%s): the objects it held are gone with it; the next plan shows them deleted (\"rdmaform apply\" starts a new agent and makes them again, \"rdmaform destroy\" forgets them)", e.detail)
}

func (e *agentGone) Unwrap() []error { return []error{apply.ErrFabricGone, e.err} }

// rpcError is an error of a call to the agent in words (client.Words,
// without gRPC's "rpc error: code = ..."), still wrapping it: the one
// translation of the agent's gRPC errors for apply and plan.
func rpcError(err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable && !client.IsNotRunning(err) {
		return &agentGone{detail: client.Words(err), err: err}
	}
	if status.Code(err) == codes.AlreadyExists {
		return &agentSaid{words: "agent: " + client.Words(err) + ". Another configuration, or this one with a lost state, made it: " +
			"if it is the object this configuration declares, \"rdmaform import\" adopts it into this state; " +
			"if another configuration uses the same address, give one of them a namespace of its own " +
			"(rdmaform { agent { namespace = \"NAME\" } }), under which the agent holds its objects", err: err}
	}
	if _, ok := status.FromError(err); ok {
		return &agentSaid{words: "agent: " + client.Words(err), err: err}
	}
	return fmt.Errorf("agent: %w", err)
}

// agentSaid is an error the agent answered, in words.
type agentSaid struct {
	words string
	err   error
}

func (e *agentSaid) Error() string { return e.words }
func (e *agentSaid) Unwrap() error { return e.err }

func factsOf(o *pb.Object) state.Facts {
	f := state.Facts{AgentHandle: o.Address, AgentHost: localHost(), Status: statusWord(o.Status), Reconnects: int(o.Reconnects)}
	if o.CreatedAt != 0 {
		f.CreatedAt = time.Unix(0, o.CreatedAt).UTC()
	}
	// Without the QP and local port of a connection that ended, as
	// status and the monitor show an endpoint between connections.
	if pf := client.CurrentFacts(o); pf != nil {
		f.Device, f.PortNum, f.QPNum, f.QPType, f.RemoteQPNum = pf.Device, int(pf.Port), pf.QpNum, pf.QpType, pf.RemoteQpNum
		f.LocalAddr, f.LocalPort = splitHostPort(pf.LocalAddr)
		f.RemoteAddr, f.RemotePort = splitHostPort(pf.RemoteAddr)
	}
	return f
}

// localHost is this host's name: the agent answers on a unix socket, so it
// runs here.
var localHost = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

func splitHostPort(s string) (string, int) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return s, 0
	}
	n, _ := strconv.Atoi(port)
	return host, n
}

func pathString(p cty.Path) string {
	var parts []string
	for _, s := range p {
		if ga, ok := s.(cty.GetAttrStep); ok {
			parts = append(parts, ga.Name)
		}
	}
	return strings.Join(parts, ".")
}

// streamEnded explains why an endpoint's wait ended with the agent's change
// stream: most often the agent stopped, and its objects with it.
func streamEnded(address string, err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
		return &agentGone{detail: fmt.Sprintf("before %s was established: %s", address, st.Message()), err: err}
	}
	return fmt.Errorf("the agent's change stream ended before %s was established: %s", address, client.Words(err))
}

// errorWords is an agent error as "CALL: ERRNO" (DEVICE_REMOVAL: ENODEV).
func errorWords(e *pb.ErrorInfo) string {
	switch {
	case e == nil || e.Call == "" && e.ErrnoName == "":
		return ""
	case e.ErrnoName == "":
		return e.Call
	case e.Call == "":
		return e.ErrnoName
	}
	return e.Call + ": " + e.ErrnoName
}
