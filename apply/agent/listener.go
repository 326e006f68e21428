package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

var errNoDevice error = syscall.ENODEV

// listener listens and accepts per its accept block, tracking each
// accepted connection as a child object until it disconnects.
type listener struct {
	obj  *object
	spec *pb.ListenerSpec
	cfg  listenerConfig
	pd   *rdmacm.PD

	mu       sync.Mutex
	maxConns uint32 // 0: unlimited
	// ready is closed once the listener listens or failed to.
	ready    chan struct{}
	readyOne sync.Once
	active   uint32 // accepted and not yet disconnected
	children sync.WaitGroup
}

func (l *listener) setMaxConnections(n uint32) {
	l.mu.Lock()
	l.maxConns = n
	l.mu.Unlock()
	l.obj.event(l.obj.status(), "updated", fmt.Sprintf("accept.max_connections = %d", n))
}

func (l *listener) markReady() { l.readyOne.Do(func() { close(l.ready) }) }

// waitReady waits until the listener listens or failed to.
func (l *listener) waitReady(ctx context.Context) error {
	select {
	case <-l.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *listener) run(ctx context.Context) {
	defer l.markReady()
	a := l.obj.agent
	k := aiKey{node: l.spec.Address, port: l.spec.Port, passive: true, portSpace: l.cfg.portSpace, qpType: l.cfg.qpType}
	qp := l.cfg.qp
	id, err := a.createEP(ctx, k, l.pd, &qp, l.cfg.opts)
	if err == nil {
		if err = l.useSRQ(id); err != nil {
			id.Close()
		} else if err = id.Listen(l.cfg.backlog); err != nil {
			id.Close()
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			err = a.namingPortHolders(l, err)
			l.obj.failure(pb.Status_ERROR, "error", err)
			a.log.Error("listener failed", "object", l.obj.address, "err", err)
		}
		l.markReady()
		<-ctx.Done()
		return
	}
	facts := factsOf(id)
	l.obj.change(func(s *state) {
		s.facts = facts
		s.record(pb.Status_LISTENING, "listening", "on "+hostPort(l.spec.Address, l.spec.Port))
	})
	l.markReady()
	a.log.Info("listening", "object", l.obj.address, "on", hostPort(l.spec.Address, l.spec.Port))
	stopEcho := l.startUDEcho(ctx, id, facts) // ud.go
	defer func() {
		stopEcho()
		// The listening id goes first, so that peers reconnecting while the
		// accepted connections disconnect meet no listener (and are
		// rejected) rather than a request queue nobody serves; Close
		// rejects the requests already queued.
		id.Close()
		l.children.Wait()
	}()
	var workers sync.WaitGroup
	for w := 0; w < acceptWorkers; w++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			l.serve(ctx, id, facts)
		}()
	}
	workers.Wait()
}

// acceptWorkers take a listener's events in parallel: each builds a
// request's QP (inside NextEvent) before it accepts, so several overlap
// that work, as rdmacm's own benchmark does.
const acceptWorkers = 4

// serve handles the listener's events until ctx ends or the listener fails.
func (l *listener) serve(ctx context.Context, id *rdmacm.ID, facts *pb.Facts) {
	a := l.obj.agent
	for {
		ev, err := id.NextEvent(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, rdmacm.ErrClosed) {
				l.obj.failure(pb.Status_ERROR, "error", err)
			}
			// Closed under it by its device's removal, which the worker
			// that took DEVICE_REMOVAL recorded: wait for the end.
			<-ctx.Done()
			return
		}
		a.metrics.cmEvent(pb.Kind_LISTENER, ev.Type)
		switch ev.Type {
		case rdmacm.ConnectRequest:
			l.request(ctx, ev)
		case rdmacm.DeviceRemoval:
			dev := ""
			if facts != nil {
				dev = facts.Device
			}
			l.obj.failure(pb.Status_ERROR, ev.Type.String(), &rdmacm.EventError{Op: "rdma_listen", Event: ev})
			a.log.Error("listener lost its device", "object", l.obj.address, "device", dev)
			a.deviceLost(dev)
			<-ctx.Done()
			return
		default:
			if ev.Type.DeviceEvent() {
				l.obj.deviceEvent(ev)
				continue
			}
			l.obj.event(l.obj.status(), ev.Type.String(), ev.String())
		}
	}
}

// acceptParam is the accept's parameters for a request: responder_resources
// and initiator_depth left out of the configuration are the least of what
// the request offers (the event's, from this side's view) and the device's
// limits, as rping and cmtime accept.
func (l *listener) acceptParam(req *rdmacm.ID, ev rdmacm.Event) rdmacm.ConnParam {
	p := l.cfg.accept
	if !l.cfg.autoResp && !l.cfg.autoInit || l.cfg.qpType != rdmacm.RC {
		return p
	}
	r, i := uint8(rdmacm.MaxRdAtoms), uint8(rdmacm.MaxRdAtoms)
	if dev, err := req.DeviceLimits(); err == nil {
		r, i = rdAtoms(dev, &ev.Param)
	}
	if l.cfg.autoResp {
		p.ResponderResources = r
	}
	if l.cfg.autoInit {
		p.InitiatorDepth = i
	}
	return p
}

// request answers one CONNECT_REQUEST: reject it past max_connections,
// otherwise accept it as a new child.
func (l *listener) request(ctx context.Context, ev rdmacm.Event) {
	req := ev.ID
	if ev.Err != nil {
		req.Reject(nil)
		req.Close()
		l.obj.failure(l.obj.status(), "CONNECT_REQUEST", ev.Err)
		return
	}
	if req.Connectionless() {
		// A UD request is answered (SIDR) with the listener's own QP (ud.go)
		// and then over: the request's id has no QP, and no event would
		// ever end it, so it goes at once rather than pile up with every
		// endpoint made and destroyed.
		err := req.StartAccept(l.cfg.accept)
		req.Close()
		data := receivedPrivateData(ev)
		l.obj.change(func(s *state) {
			if err != nil {
				s.lastError = errorInfo(err)
				s.record(s.status, "error", err.Error())
				return
			}
			s.acceptedTotal++
			s.receivedPrivateData = data // the last request's: no object is left to hold each
		})
		return
	}
	l.mu.Lock()
	full := l.maxConns > 0 && l.active >= l.maxConns
	max := l.maxConns
	if !full {
		l.active++
	}
	l.mu.Unlock()
	if full {
		reason := fmt.Sprintf("rdmaform: %s has reached max_connections = %d", l.obj.address, max)
		reason = reason[:min(len(reason), rdmacm.MaxPrivateData(l.cfg.portSpace, l.cfg.qpType, rdmacm.Reject))]
		data := []byte(reason)
		if l.cfg.rejectData != nil {
			data = l.cfg.rejectData
		}
		err := req.Reject(data)
		req.Close()
		l.obj.change(func(s *state) {
			s.rejectedTotal++
			if err != nil {
				s.lastError = errorInfo(err)
			}
			s.record(s.status, "rejected a request", reason)
		})
		a := l.obj.agent
		a.log.Info("rejected a connect request", "object", l.obj.address, "reason", reason)
		return
	}
	n := l.obj.agent.connSeq.Add(1)
	a := l.obj.agent
	child := a.newObject(fmt.Sprintf("%s/conn/%d", l.obj.address, n), "", l.obj.address, pb.Kind_CONNECTION)
	c := &connection{obj: child, listener: l, id: req, accept: l.acceptParam(req, ev), disconnected: make(chan struct{})}
	child.impl = c
	child.st.record(pb.Status_CREATING, ev.Type.String(), "")
	child.st.receivedPrivateData = receivedPrivateData(ev)
	cctx, cancel := context.WithCancel(ctx)
	child.ctx, child.cancel = cctx, cancel
	// Accept first, in the worker that took the request, so the peer's REP
	// is not delayed by the bookkeeping; the connection's events wait in its
	// queue until run hands them over.
	c.start()
	a.reg.add(child)
	child.announce()
	l.obj.change(func(s *state) {
		s.connections++
		s.acceptedTotal++
	})
	l.children.Add(1)
	a.pdBack(l.obj.pdAddress)
	c.run(cctx)
}
