package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
	"google.golang.org/protobuf/proto"
)

// endpoint connects to a listener and keeps the connection: it probes it
// when told, and with a reconnect policy reconnects after DISCONNECTED,
// REJECTED, UNREACHABLE or a failed probe run, backing off exponentially
// with jitter.
type endpoint struct {
	obj *object
	cfg endpointConfig
	pd  *rdmacm.PD
	key aiKey

	mu        sync.Mutex
	spec      *pb.EndpointSpec // replaced, never modified, by update
	reconnect *backoff
	probe     *probeConfig
	// reconnectSet: an update gave the reconnect policy, which then
	// applies before the endpoint has ever connected too.
	reconnectSet bool

	// kick wakes the lifecycle when reconnect or probe changed.
	kick      chan struct{}
	probeKick chan struct{}
	// again asks the lifecycle to connect again at once (reconnect.go).
	again chan struct{}

	// accepted is the private data of the accept that established the
	// session's connection; session records it with the facts.
	accepted []byte
}

func newEndpoint(o *object, spec *pb.EndpointSpec, cfg endpointConfig, pd *rdmacm.PD) *endpoint {
	r, _ := backoffOf(spec.Reconnect)
	p, _ := probeOf(spec.Probe)
	return &endpoint{
		obj: o, cfg: cfg, pd: pd, spec: spec, reconnect: r, probe: p,
		key:  aiKey{node: spec.Address, port: spec.Port, source: spec.SourceAddress, portSpace: cfg.portSpace, qpType: cfg.qpType},
		kick: make(chan struct{}, 1), probeKick: make(chan struct{}, 1), again: make(chan struct{}, 1),
	}
}

// policy is the reconnect policy that applies now: none before the
// endpoint has connected once (a first connect that fails fails the
// create, which apply deletes; an endpoint a killed apply left must not
// retry for ever unrecorded), unless an update set it since.
func (e *endpoint) policy(connected bool) *backoff {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !connected && !e.reconnectSet {
		return nil
	}
	return e.reconnect
}

func (e *endpoint) probeConfig() *probeConfig {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.probe
}

// update changes reconnect and probe in place.
func (e *endpoint) update(req *pb.UpdateRequest) error {
	r, err := backoffOf(req.Reconnect)
	if err != nil {
		return err
	}
	p, err := probeOf(req.Probe)
	if err != nil {
		return err
	}
	if req.SetProbe && p != nil && !probes(e.cfg.qpType) {
		return fmt.Errorf("probe needs an RC or UD QP (the endpoint's is %s)", e.cfg.qpType)
	}
	if err := e.cfg.probeNeeds(p); err != nil {
		return err
	}
	e.mu.Lock()
	spec := proto.Clone(e.spec).(*pb.EndpointSpec)
	var what []string
	if req.SetReconnect {
		e.reconnect, spec.Reconnect, e.reconnectSet = r, req.Reconnect, true
		what = append(what, "reconnect")
	}
	if req.SetProbe {
		e.probe, spec.Probe = p, req.Probe
		what = append(what, "probe")
	}
	e.spec = spec
	e.mu.Unlock()
	e.obj.change(func(s *state) {
		s.endpointSpec = spec
		if req.SetProbe && p == nil {
			s.probe = nil
		}
		s.record(s.status, "updated", strings.Join(what, ", "))
	})
	for _, ch := range []chan struct{}{e.kick, e.probeKick} {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return nil
}

func (e *endpoint) run(ctx context.Context) {
	attempt := 0
	wait := e.cfg.createTimeout // the first connect's: the create's
	connected := false
	for {
		established, now := e.session(ctx, attempt, wait)
		wait = establishTimeout
		if ctx.Err() != nil {
			return
		}
		if established {
			attempt, connected = 0, true
		}
		policy := e.policy(connected)
		for policy == nil && !now {
			// Final until an update gives it a reconnect policy, or an
			// operator asks to connect again.
			select {
			case <-ctx.Done():
				return
			case <-e.kick:
				policy = e.policy(connected)
			case <-e.again:
				now = true
			}
		}
		if now { // asked: at once, the back-off reset
			attempt = 0
		} else {
			d := policy.delay(attempt, jitter)
			attempt++
			e.obj.event(pb.Status_RECONNECTING, "reconnecting", fmt.Sprintf("attempt %d in %v", attempt, d.Round(time.Millisecond)))
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-e.again:
				t.Stop()
				attempt = 0
			case <-t.C:
			}
		}
		e.obj.change(func(s *state) { s.reconnects++ })
		e.obj.agent.metrics.reconnect(e.obj.address)
	}
}

// session makes one id, connects it, waits up to wait for ESTABLISHED and
// keeps it until it ends. It reports whether the connection was
// established, and whether it ended because an operator asked to
// connect again at once.
func (e *endpoint) session(ctx context.Context, attempt int, wait time.Duration) (established, now bool) {
	a := e.obj.agent
	start := time.Now()
	select { // a request made while the previous session ended is this one
	case <-e.again:
	default:
	}
	if attempt == 0 {
		e.obj.event(pb.Status_CONNECTING, "connecting", "to "+hostPort(e.key.node, e.key.port))
	}
	qp := e.cfg.qp
	id, err := a.dial(ctx, e.key, e.pd, &qp, e.cfg.resolveTimeout, e.cfg.opts)
	if err != nil {
		if ctx.Err() == nil {
			e.obj.failure(pb.Status_ERROR, "error", err)
		}
		return false, false
	}
	defer id.Close()
	if attempt > 0 {
		e.obj.event(pb.Status_CONNECTING, "connecting", fmt.Sprintf("to %s (attempt %d)", hostPort(e.key.node, e.key.port), attempt))
	}
	if err := id.StartConnect(e.connectParam(id)); err != nil {
		e.obj.failure(pb.Status_ERROR, "error", err)
		return false, false
	}
	if !e.waitEstablished(ctx, id, wait) {
		return false, false
	}
	a.metrics.connected(time.Since(start))
	// The facts in the same change as the status: apply records both, and
	// one change costs every watcher one copy rather than two.
	facts := factsOf(id)
	e.obj.change(func(s *state) {
		s.facts = facts
		s.receivedPrivateData = e.accepted
		s.connectedSince = time.Now()
		s.record(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	})
	a.pdBack(e.obj.pdAddress)

	sctx, stop := context.WithCancel(ctx)
	defer stop()
	probeFailed := make(chan struct{})
	var probeWhy string // written before probeFailed is closed
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		if probes(e.cfg.qpType) {
			e.probeLoop(sctx, id, func(why string) { probeWhy = why; close(probeFailed); stop() })
		}
	}()
	asked := e.watchAgain(sctx, stop)
	defer func() {
		// The probe loop ends (its waits take sctx) and is joined before
		// the id goes, so it never posts to or copies from a closing id.
		stop()
		<-probeDone
		id.Close()
	}()
	for {
		ev, err := id.NextEvent(sctx)
		switch {
		case ctx.Err() != nil:
			stop()
			disconnect(id)
			return true, false
		case err != nil && closed(asked):
			e.endAsked(id)
			return true, true
		case err != nil:
			select {
			case <-probeFailed:
				stop()
				facts := factsOf(id) // the QP's state now (ERR, when it failed)
				disconnect(id)
				then := "disconnected"
				if e.policy(true) != nil {
					then = "disconnected to reconnect"
				}
				e.obj.change(func(s *state) {
					if facts != nil {
						s.facts = facts
					}
					s.record(pb.Status_DISCONNECTED, "probe run failed", probeWhy+": "+then)
				})
			default:
				e.obj.failure(pb.Status_ERROR, "error", err)
			}
			return true, false
		}
		a.metrics.cmEvent(pb.Kind_ENDPOINT, ev.Type)
		switch ev.Type {
		case rdmacm.Disconnected:
			id.Disconnect() // answer, so the peer need not wait for the CM timeout
			e.obj.change(func(s *state) {
				if f := factsOf(id); f != nil {
					s.facts = f
				}
				s.record(pb.Status_DISCONNECTED, ev.Type.String(), "")
			})
			return true, false
		case rdmacm.DeviceRemoval:
			dev := ""
			if facts != nil {
				dev = facts.Device
			}
			e.obj.failure(pb.Status_ERROR, ev.Type.String(), &rdmacm.EventError{Op: "rdma_connect", Event: ev})
			a.log.Error("endpoint lost its device", "object", e.obj.address, "device", dev)
			a.deviceLost(dev)
			return true, false
		default:
			if ev.Type.DeviceEvent() {
				e.obj.deviceEvent(ev)
				continue
			}
			e.obj.event(e.obj.status(), ev.Type.String(), ev.String())
		}
	}
}

// connectParam is the connect's parameters: responder_resources and
// initiator_depth left out of the configuration are the device's limits
// (the listener answers with no more than its own).
func (e *endpoint) connectParam(id *rdmacm.ID) rdmacm.ConnParam {
	p := e.cfg.connect
	if !e.cfg.autoResp && !e.cfg.autoInit || e.cfg.qpType != rdmacm.RC {
		return p
	}
	r, i := uint8(rdmacm.MaxRdAtoms), uint8(rdmacm.MaxRdAtoms)
	if dev, err := id.DeviceLimits(); err == nil {
		r, i = rdAtoms(dev, nil)
	}
	if e.cfg.autoResp {
		p.ResponderResources = r
	}
	if e.cfg.autoInit {
		p.InitiatorDepth = i
	}
	return p
}

// noEstablished says why a connect saw no ESTABLISHED within timeout. A
// bound below the default may be the cause itself: a peer that answers
// still takes the CM's request and reply, which a timeouts.create of a
// millisecond does not leave it (an audit's 1ms create blamed the peer).
func noEstablished(timeout time.Duration) string {
	why := "the peer never answered (no host at the address, or a listener whose backlog was full dropped the request)"
	if timeout < establishTimeout {
		why = fmt.Sprintf("the peer did not answer in time (no host at the address, a listener whose backlog was full dropped the request, or the timeouts.create bound of %v is shorter than a connect takes)", timeout)
	}
	return fmt.Sprintf("no ESTABLISHED within %v of rdma_connect: %s", timeout, why)
}

// waitEstablished waits for the connect's outcome, bounded by timeout,
// and records a failure.
func (e *endpoint) waitEstablished(ctx context.Context, id *rdmacm.ID, timeout time.Duration) bool {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ev, err := id.NextEvent(cctx)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			if errors.Is(err, context.DeadlineExceeded) {
				err = &agentError{Call: "rdma_connect", Err: syscall.ETIMEDOUT, Msg: noEstablished(timeout)}
			}
			e.obj.failure(pb.Status_ERROR, "error", err)
			return false
		}
		e.obj.agent.metrics.cmEvent(pb.Kind_ENDPOINT, ev.Type)
		if ev.Type.DeviceEvent() {
			e.obj.deviceEvent(ev) // news of the port or QP, not the connect's outcome
			continue
		}
		switch ev.Type {
		case rdmacm.Established:
			if ev.Err != nil { // a UD id's address handle could not be made
				e.obj.failure(pb.Status_ERROR, ev.Type.String(), ev.Err)
				return false
			}
			e.accepted = receivedPrivateData(ev)
			return true
		case rdmacm.ConnectResponse:
			continue
		case rdmacm.Rejected:
			reason := rejectText(trimZeros(ev.PrivateData))
			err := &rdmacm.EventError{Op: "rdma_connect", Event: ev}
			e.obj.change(func(s *state) {
				s.rejectReason = reason
				s.lastError = errorInfo(err)
				if reason != "" {
					s.lastError.Message += ": " + reason
				}
				detail := rdmacm.RejectReason(ev.Status)
				if reason != "" {
					detail += ": " + reason
				}
				s.record(pb.Status_REJECTED, ev.Type.String(), detail)
			})
			// Only the private data's length: the agent cannot tell whether
			// it came from a sensitive value.
			e.obj.agent.log.Warn("connect rejected", "object", e.obj.address, "reason", rdmacm.RejectReason(ev.Status), "private_data_bytes", len(reason))
			return false
		default:
			status := pb.Status_ERROR
			if ev.Type == rdmacm.Unreachable || ev.Type == rdmacm.Disconnected {
				status = pb.Status_DISCONNECTED
			}
			e.obj.failure(status, ev.Type.String(), &rdmacm.EventError{Op: "rdma_connect", Event: ev})
			return false
		}
	}
}

func trimZeros(b []byte) []byte {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return b[:n]
}

// disconnect disconnects an id and waits briefly for its DISCONNECTED, so
// the peer sees an orderly end before the id is destroyed; a UD id has no
// connection to end.
func disconnect(id *rdmacm.ID) {
	if id.Connectionless() || id.Disconnect() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), disconnectWait)
	defer cancel()
	for {
		ev, err := id.NextEvent(ctx)
		if err != nil || ev.Type == rdmacm.Disconnected || ev.Type == rdmacm.DeviceRemoval {
			return
		}
	}
}
