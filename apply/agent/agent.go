// Package agent is the rdmaform agent: it holds protection domains,
// listeners and endpoints over the rdmacm binding and serves them through
// the gRPC API of package agentpb on a unix socket (see Run).
//
// Each listener and endpoint has a goroutine that runs its lifecycle; ids
// are migrated to one shared event channel whose single loop reads their
// events, so no OS thread is parked per endpoint. Every change of an object
// takes the next agent-wide revision and reaches the watchers through a
// hub that coalesces per object when a watcher falls behind.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// createWorkers bounds how many rdma_create_ep calls (listeners) run at
// once: each may wait in librdmacm for address resolution.
const createWorkers = 32

// dialWorkers bounds how many endpoints resolve their address and route at
// once: 1,000 together is what cmtime does; 10,000 together made a loaded
// Soft-RoCE VM miss librdmacm's 2 s resolution timeout.
const dialWorkers = 1000

// Agent holds the objects. Its methods are safe from any goroutine.
type Agent struct {
	log      *slog.Logger
	reg      *registry
	hub      *hub
	revision atomic.Uint64
	// statusChanges counts objects' status changes, creations and
	// deletions: the kernel check waits for it to stand still.
	statusChanges atomic.Uint64
	ctx           context.Context
	stop          context.CancelFunc
	closing       atomic.Bool

	// pdMu makes "find the protection domain and register a user" atomic
	// against deleting the protection domain.
	pdMu sync.RWMutex

	chMu sync.Mutex
	ch   *rdmacm.EventChannel
	// dialChs are the endpoints' channels (see dialChannel); dialNext
	// picks the next.
	dialChs  []*rdmacm.EventChannel
	dialNext atomic.Uint64
	// failedChs are channels whose loop failed, replaced for new ids and
	// closed with the agent.
	failedChs []*rdmacm.EventChannel

	ais *aiCache

	createSem chan struct{}
	dialSem   chan struct{}
	connSeq   atomic.Uint64
	startedAt time.Time
	metrics   *promMetrics
	kernel    *kernelView
}

// New makes an agent that holds nothing yet.
func New(log *slog.Logger) *Agent {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Agent{
		log: log, reg: newRegistry(), hub: newHub(), ctx: ctx, stop: stop,
		ais: newAICache(resolveAddr), createSem: make(chan struct{}, createWorkers),
		dialSem:   make(chan struct{}, dialWorkers),
		startedAt: time.Now(),
		metrics:   newMetrics(false),
		kernel:    newKernelView(),
	}
}

// errStopping refuses new objects once shutdown began.
var errStopping = errors.New("the agent is stopping")

// channel is the shared event channel, made on first use so that an agent
// on a host without RDMA still serves its API and reports why ids fail.
func (a *Agent) channel() (*rdmacm.EventChannel, error) {
	a.chMu.Lock()
	defer a.chMu.Unlock()
	if a.ch != nil && a.ch.Err() == nil {
		return a.ch, nil
	}
	if a.ch != nil {
		// Its loop failed (its ids heard why): new ids go to a new one.
		a.log.Error("the listeners' event channel failed; new ids get a new one", "err", a.ch.Err())
		a.failedChs = append(a.failedChs, a.ch)
		a.ch = nil
	}
	if a.closing.Load() {
		return nil, errStopping // Close has closed it or is about to
	}
	ch, err := rdmacm.NewEventChannel()
	if err != nil {
		return nil, err
	}
	a.ch = ch
	return ch, nil
}

// dialChannels is how many event channels the endpoints share, apart from
// the listeners' (channel). librdmacm used to complete a connect inside
// the event read that returns its ESTABLISHED (the QP moved to RTR and
// RTS, the RTU sent): a millisecond each in the Soft-RoCE VM, so one
// channel's loop, reading one event after another, was the pace at which
// a thousand endpoints came up. Two loops complete two connects at once,
// as the separate processes of cmtime's client and server do. (rdmacm now
// completes an RC connect in the goroutine that waits for it; the two
// loops still split the reads of the events.)
const dialChannels = 2

// dialChannel is the event channel of the next endpoint, in turn among
// dialChannels, made on first use.
func (a *Agent) dialChannel() (*rdmacm.EventChannel, error) {
	if _, err := a.channel(); err != nil {
		return nil, err
	}
	a.chMu.Lock()
	defer a.chMu.Unlock()
	if a.dialChs == nil {
		if a.closing.Load() {
			return nil, errStopping
		}
		for range dialChannels {
			ch, err := rdmacm.NewEventChannel()
			if err != nil {
				for _, c := range a.dialChs {
					c.Close()
				}
				a.dialChs = nil
				return nil, err
			}
			a.dialChs = append(a.dialChs, ch)
		}
	}
	i := a.dialNext.Add(1) % uint64(len(a.dialChs))
	if err := a.dialChs[i].Err(); err != nil {
		ch, nerr := rdmacm.NewEventChannel()
		if nerr != nil {
			return nil, nerr
		}
		a.log.Error("an endpoints' event channel failed; new ids get a new one", "err", err)
		a.failedChs = append(a.failedChs, a.dialChs[i])
		a.dialChs[i] = ch
	}
	return a.dialChs[i], nil
}

// warm opens the event channel ahead of the first object (Run calls it as
// the agent starts serving): librdmacm initialises itself on the first
// channel, which took 0.2-0.7 s of CPU in the Soft-RoCE VM, and the first
// apply should not wait for it. A failure (no RDMA here) is reported again,
// with its reason, to whatever needs the channel later.
func (a *Agent) warm() {
	start := time.Now()
	if _, err := a.dialChannel(); err != nil { // the listeners' channel first
		a.log.Debug("no event channel yet", "err", err)
		return
	}
	a.log.Debug("event channels open", "took", time.Since(start).Round(time.Millisecond).String())
}

type aiKey struct {
	node      string
	port      uint32
	source    string // an active endpoint's source address, or ""
	passive   bool
	portSpace rdmacm.PortSpace
	qpType    rdmacm.QPType
}

// resolveAddr resolves where to listen or connect (see aiCache, which
// keeps the results).
func resolveAddr(k aiKey) (*rdmacm.AddrInfo, error) {
	h := rdmacm.Hints{PortSpace: k.portSpace, QPType: k.qpType, Source: k.source}
	if k.passive {
		h.Flags |= rdmacm.Passive
	}
	return rdmacm.GetAddrInfo(k.node, strconv.Itoa(int(k.port)), &h)
}

// dial makes an active id with a QP on the shared channel, resolving its
// address and route asynchronously (rdmacm.Dial), so that endpoints come up
// together without a thread each; at most dialWorkers resolve at once.
// Address and route resolution may each take resolveTimeout
// (connect.timeout) from when it starts: the time a dial waits behind a
// thousand others does not count against it.
func (a *Agent) dial(ctx context.Context, k aiKey, pd *rdmacm.PD, qp *rdmacm.QPInit, resolveTimeout time.Duration, opts rdmacm.Options) (*rdmacm.ID, error) {
	select {
	case a.dialSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.dialSem }()
	ch, err := a.dialChannel()
	if err != nil {
		return nil, err
	}
	ai, release, err := a.ais.get(ctx, k)
	if err != nil {
		return nil, err
	}
	defer release()
	id, err := rdmacm.DialWith(ctx, ai, pd, qp, ch, resolveTimeout, opts)
	if staleAddrError(err) {
		a.ais.forget(k)
	}
	return id, err
}

// createEP makes a passive id (for a listener) on the shared channel, at
// most createWorkers at a time.
func (a *Agent) createEP(ctx context.Context, k aiKey, pd *rdmacm.PD, qp *rdmacm.QPInit, opts rdmacm.Options) (*rdmacm.ID, error) {
	select {
	case a.createSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.createSem }()
	ch, err := a.channel()
	if err != nil {
		return nil, err
	}
	ai, release, err := a.ais.get(ctx, k)
	if err != nil {
		return nil, err
	}
	defer release()
	id, err := rdmacm.CreateEPWith(ai, pd, qp, ch, opts)
	if staleAddrError(err) {
		a.ais.forget(k)
	}
	return id, err
}

// prepare gives o the context its lifecycle will run in. It is called
// before o is registered, so that a delete arriving at once finds o.cancel
// set (rather than reading it unset and then waiting for a goroutine that
// nothing stops).
func (a *Agent) prepare(o *object) {
	o.ctx, o.cancel = context.WithCancel(a.ctx)
}

// start runs an object's lifecycle, prepared, in its own goroutine.
func (a *Agent) start(o *object, run func(ctx context.Context)) {
	go func() {
		defer close(o.done)
		run(o.ctx)
	}()
}

// protectionDomain finds the PD a listener or endpoint names; the caller
// holds pdMu for reading.
func (a *Agent) protectionDomain(addr string) (*rdmacm.PD, error) {
	if addr == "" {
		return nil, nil
	}
	o := a.reg.get(addr)
	if o == nil || o.kind != pb.Kind_PROTECTION_DOMAIN {
		return nil, &notFound{fmt.Sprintf("protection domain %s does not exist: create it first", addr)}
	}
	pd, _ := o.impl.(*rdmacm.PD)
	if pd == nil {
		return nil, &notFound{fmt.Sprintf("protection domain %s is not allocated (status %s)", addr, o.status())}
	}
	return pd, nil
}

type notFound struct{ msg string }

func (e *notFound) Error() string { return e.msg }

// inUse is a protection domain that listeners or endpoints still use.
type inUse struct{ msg string }

func (e *inUse) Error() string { return e.msg }

// CreateProtectionDomain allocates a PD on a device (ibv_alloc_pd). It is
// synchronous: a failure is returned and nothing is kept.
func (a *Agent) CreateProtectionDomain(addr, token string, spec *pb.ProtectionDomainSpec) (*pb.Object, error) {
	if err := a.checkCreate(addr); err != nil {
		return nil, err
	}
	if spec == nil || spec.Device == "" {
		return nil, fmt.Errorf("a protection domain needs a device, such as rxe0")
	}
	a.pdMu.Lock()
	defer a.pdMu.Unlock()
	o, created, err := a.reg.claim(addr, token, pb.Kind_PROTECTION_DOMAIN, func() *object {
		o := a.newObject(addr, token, "", pb.Kind_PROTECTION_DOMAIN)
		o.st.pdSpec = spec
		close(o.done)
		pd, err := rdmacm.AllocPD(spec.Device)
		if err != nil {
			o.st.lastError = errorInfo(err)
			return o
		}
		o.impl = pd
		o.st.facts = &pb.Facts{Device: spec.Device} // as status shows it
		return o
	})
	if err != nil || !created {
		return snapshotOrNil(o), err
	}
	if _, ok := o.impl.(*rdmacm.PD); !ok {
		a.reg.remove(o)
		return nil, fmt.Errorf("%s: %s", addr, o.st.lastError.Message)
	}
	o.announce()
	o.event(pb.Status_READY, "allocated", "on "+spec.Device)
	a.log.Info("protection domain allocated", "object", addr, "device", spec.Device)
	return o.snapshot(true), nil
}

func snapshotOrNil(o *object) *pb.Object {
	if o == nil {
		return nil
	}
	return o.snapshot(true)
}

func (a *Agent) checkCreate(addr string) error {
	if a.closing.Load() {
		return errStopping
	}
	return checkAddress(addr)
}

// CreateListener registers a listener, starts it and waits (within ctx)
// until it listens or failed to, so that endpoints created next find it;
// the returned object's status says which.
func (a *Agent) CreateListener(ctx context.Context, addr, token string, spec *pb.ListenerSpec) (*pb.Object, error) {
	o, err := a.claimListener(addr, token, spec)
	if err != nil {
		return nil, err
	}
	if err := o.impl.(*listener).waitReady(ctx); err != nil {
		return nil, err
	}
	return o.snapshot(true), nil
}

// claimListener registers the listener (or finds the one this token made)
// and starts it.
func (a *Agent) claimListener(addr, token string, spec *pb.ListenerSpec) (*object, error) {
	if err := a.checkCreate(addr); err != nil {
		return nil, err
	}
	cfg, err := checkListener(spec)
	if err != nil {
		return nil, err
	}
	return a.claimAndStart(addr, token, pb.Kind_LISTENER, spec.ProtectionDomain, func(o *object, pd *rdmacm.PD) func(context.Context) {
		o.st.listenerSpec = spec
		l := &listener{obj: o, spec: spec, cfg: cfg, pd: pd, maxConns: spec.GetAccept().GetMaxConnections(), ready: make(chan struct{})}
		o.impl = l
		return l.run
	})
}

// CreateEndpoint registers an endpoint and starts connecting it.
func (a *Agent) CreateEndpoint(addr, token string, spec *pb.EndpointSpec) (*pb.Object, error) {
	o, err := a.createEndpoint(addr, token, spec)
	if err != nil {
		return nil, err
	}
	return o.snapshot(true), nil
}

func (a *Agent) createEndpoint(addr, token string, spec *pb.EndpointSpec) (*object, error) {
	if err := a.checkCreate(addr); err != nil {
		return nil, err
	}
	cfg, err := checkEndpoint(spec)
	if err != nil {
		return nil, err
	}
	return a.claimAndStart(addr, token, pb.Kind_ENDPOINT, spec.ProtectionDomain, func(o *object, pd *rdmacm.PD) func(context.Context) {
		o.st.endpointSpec = spec
		e := newEndpoint(o, spec, cfg, pd)
		o.impl = e
		return e.run
	})
}

// claimAndStart registers a listener or endpoint (or finds the one this
// token made) on the protection domain pdAddr ("" for the default). fill
// sets the new object's own part and returns its lifecycle, which starts
// once the object is registered.
func (a *Agent) claimAndStart(addr, token string, kind pb.Kind, pdAddr string, fill func(*object, *rdmacm.PD) func(context.Context)) (*object, error) {
	a.pdMu.RLock()
	defer a.pdMu.RUnlock()
	pd, err := a.protectionDomain(pdAddr)
	if err != nil {
		return nil, err
	}
	var run func(context.Context)
	o, created, err := a.reg.claim(addr, token, kind, func() *object {
		o := a.newObject(addr, token, "", kind)
		a.prepare(o)
		o.pdAddress = pdAddr
		run = fill(o, pd)
		return o
	})
	if err != nil {
		return nil, err
	}
	if created {
		o.announce()
		a.start(o, run)
	}
	return o, nil
}

// Update changes an object in place: an endpoint's reconnect and probe, a
// listener's max_connections.
func (a *Agent) Update(req *pb.UpdateRequest) (*pb.Object, error) {
	o := a.reg.get(req.Address)
	if o == nil {
		return nil, &notFound{fmt.Sprintf("%s does not exist", req.Address)}
	}
	switch impl := o.impl.(type) {
	case *endpoint:
		if req.SetMaxConnections {
			return nil, fmt.Errorf("%s is an endpoint: accept.max_connections belongs to listeners", req.Address)
		}
		if err := impl.update(req); err != nil {
			return nil, err
		}
	case *listener:
		if req.SetProbe || req.SetReconnect {
			return nil, fmt.Errorf("%s is a listener: reconnect and probe belong to endpoints", req.Address)
		}
		if req.SetMaxConnections {
			impl.setMaxConnections(req.MaxConnections)
		}
	default:
		return nil, fmt.Errorf("%s is a %s: nothing of it changes in place", req.Address, kindName(o.kind))
	}
	return o.snapshot(true), nil
}

// Delete disconnects and destroys an object; deleting what is gone
// succeeds with existed = false.
func (a *Agent) Delete(ctx context.Context, addr string) (bool, error) {
	o := a.reg.get(addr)
	if o == nil {
		return false, nil
	}
	if o.kind == pb.Kind_PROTECTION_DOMAIN {
		return true, a.deletePD(o)
	}
	a.stopObject(o)
	return true, nil
}

// DeleteResult is one address's outcome in DeleteMany.
type DeleteResult struct {
	Existed bool
	Err     error
}

// DeleteMany deletes many objects as Delete would, the listeners and
// endpoints in parallel (every one is told to stop before any is waited
// for, so their disconnects overlap), then the protection domains the
// request names, which may be the ones the others used. Results are in
// the order of addrs; an address given twice is deleted once and its
// later mentions report existed = false.
func (a *Agent) DeleteMany(addrs []string) []DeleteResult {
	out := make([]DeleteResult, len(addrs))
	objs := make([]*object, len(addrs))
	seen := make(map[string]bool, len(addrs))
	for i, addr := range addrs {
		if seen[addr] {
			continue
		}
		seen[addr] = true
		if o := a.reg.get(addr); o != nil {
			objs[i] = o
			out[i].Existed = true
			if o.kind != pb.Kind_PROTECTION_DOMAIN && o.cancel != nil {
				o.cancel()
			}
		}
	}
	for _, o := range objs {
		if o != nil && o.kind != pb.Kind_PROTECTION_DOMAIN {
			a.stopObject(o) // already cancelled: waits for its goroutine
		}
	}
	for i, o := range objs {
		if o != nil && o.kind == pb.Kind_PROTECTION_DOMAIN {
			out[i].Err = a.deletePD(o)
		}
	}
	return out
}

// stopObject stops an object's goroutine (which disconnects and closes its
// ids), then removes it.
func (a *Agent) stopObject(o *object) {
	if o.cancel != nil {
		o.cancel()
	}
	<-o.done
	if a.reg.remove(o) {
		o.markDeleted()
	}
}

func (a *Agent) deletePD(o *object) error {
	a.pdMu.Lock()
	defer a.pdMu.Unlock()
	if users := a.reg.users(o.address); len(users) > 0 {
		return &inUse{fmt.Sprintf("protection domain %s is used by %v: delete those first", o.address, users)}
	}
	if !a.reg.remove(o) {
		return nil
	}
	o.markDeleted()
	if pd, ok := o.impl.(*rdmacm.PD); ok {
		if err := pd.Close(); err != nil {
			a.log.Warn("closing a protection domain", "object", o.address, "err", err)
			return err
		}
	}
	a.log.Info("protection domain freed", "object", o.address)
	return nil
}

// List snapshots every object the filter matches (every object when it is
// nil), sorted by address: whole (with or without history) when full, else
// its summary.
func (a *Agent) List(full, withHistory bool, pf *pb.Filter) []*pb.Object {
	f := filterOf(pf)
	objs := a.reg.all()
	out := make([]*pb.Object, 0, len(objs))
	for _, o := range objs {
		if !f.matchObject(o) {
			continue
		}
		if full || withHistory {
			out = append(out, o.snapshot(withHistory))
		} else {
			out = append(out, o.summary())
		}
	}
	return out
}

// listSummaryWire is List's summaries of the objects f matches, sorted by
// address, already encoded as the elements of ListResponse.objects: each
// object's encoding is kept until it changes, so listing copies bytes.
func (a *Agent) listSummaryWire(f filter) []byte {
	objs := a.reg.all()
	var b []byte
	for i, o := range objs {
		if !f.matchObject(o) {
			continue
		}
		if b == nil {
			// Room for every object at the size of the first, plus slack.
			b = make([]byte, 0, (len(objs)-i)*128)
		}
		b = o.appendSummaryWire(b)
	}
	return b
}

// deviceLost marks the protection domains of a removed device, and
// forgets the addresses resolved while it was there.
func (a *Agent) deviceLost(device string) {
	a.ais.forgetAll()
	for _, o := range a.reg.all() {
		if o.kind != pb.Kind_PROTECTION_DOMAIN || o.st.pdSpec.GetDevice() != device {
			continue
		}
		if o.status() != pb.Status_ERROR {
			o.failure(pb.Status_ERROR, "DEVICE_REMOVAL", &agentError{Call: "DEVICE_REMOVAL", Msg: "device " + device + " was removed", Err: errNoDevice})
		}
	}
}

// pdBack marks a protection domain ready again once a QP made on it after
// its device's removal allocated it again on the device come back.
func (a *Agent) pdBack(addr string) {
	if addr == "" {
		return
	}
	o := a.reg.get(addr)
	if o == nil || o.kind != pb.Kind_PROTECTION_DOMAIN || o.status() != pb.Status_ERROR {
		return
	}
	if pd, ok := o.impl.(*rdmacm.PD); ok && pd.Allocated() {
		o.event(pb.Status_READY, "allocated again", "on "+pd.Device()+", back after its removal")
		a.log.Info("protection domain allocated again", "object", addr, "device", pd.Device())
	}
}

// Close stops the agent: every endpoint disconnects, then every listener
// with its accepted connections, then the protection domains are freed and
// the event channel destroyed. It is idempotent.
func (a *Agent) Close() error {
	if a.closing.Swap(true) {
		<-a.ctx.Done()
		return nil
	}
	start := time.Now()
	objs := a.reg.all()
	var errs []error
	for _, kind := range []pb.Kind{pb.Kind_ENDPOINT, pb.Kind_LISTENER} {
		var wg sync.WaitGroup
		for _, o := range objs {
			if o.kind == kind {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a.stopObject(o)
				}()
			}
		}
		wg.Wait()
	}
	for _, o := range a.reg.all() {
		if o.kind == pb.Kind_PROTECTION_DOMAIN {
			if err := a.deletePD(o); err != nil {
				errs = append(errs, err)
			}
		} else {
			a.stopObject(o)
		}
	}
	a.stop()
	a.chMu.Lock()
	for _, ch := range append(a.dialChs, a.failedChs...) {
		errs = append(errs, ch.Close())
	}
	if a.ch != nil {
		errs = append(errs, a.ch.Close())
	}
	a.chMu.Unlock()
	a.ais.forgetAll()
	a.log.Info("agent stopped its objects", "objects", len(objs), "took", time.Since(start).Round(time.Millisecond).String(), "live_ids", rdmacm.LiveIDs())
	return errors.Join(errs...)
}
