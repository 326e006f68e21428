package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// disconnectWait bounds how long a disconnect waits for the peer's
// DISCONNECTED before the id is destroyed anyway.
const disconnectWait = 2 * time.Second

// connection is a connection a listener accepted: it lives until it
// disconnects, echoing messages when the listener says so. No goroutine
// waits for its events: the event loop hands them to handle (OnEvents), so
// a listener with thousands of connections parks no goroutine per
// connection; goroutines run only to echo and to end it.
type connection struct {
	obj      *object
	listener *listener
	id       *rdmacm.ID
	accept   rdmacm.ConnParam // the listener's, with this request's rd atomics
	echo     *echoer          // nil without echo, or with the listener's SRQ
	srqEcho  *srqEchoer       // the echo of a connection on the listener's SRQ
	failed   bool             // the accept failed: there is nothing to wait for

	echoDone     chan struct{} // closed when the echo loop ends (nil without echo)
	stopEcho     context.CancelFunc
	disconnected chan struct{} // closed once it is down: DISCONNECTED, the device lost, an error
	discOnce     sync.Once
	endOnce      sync.Once
}

// start posts the echo's first receive (before the accept, so that a probe
// sent as soon as the peer sees ESTABLISHED finds it instead of meeting an
// RNR NAK and its retry timer) and accepts.
func (c *connection) start() {
	if c.listener.cfg.echo && c.listener.cfg.srq != nil {
		c.srqEcho = &srqEchoer{id: c.id, srq: c.id.SRQ()} // its receives are the SRQ's, posted already
	} else if c.listener.cfg.echo {
		var err error
		if c.echo, err = newEchoer(c.id); err != nil {
			c.obj.st.lastError = errorInfo(err)
			c.obj.st.record(pb.Status_ERROR, "echo", err.Error())
			c.id.Reject(nil)
			c.failed = true
			return
		}
	}
	err := c.setAckTimeout()
	if err != nil {
		c.id.Reject(nil) // the peer learns at once, as of a failed accept
	} else {
		err = c.id.StartAccept(c.accept)
	}
	if err != nil {
		c.obj.st.lastError = errorInfo(err)
		c.obj.st.record(pb.Status_ERROR, "error", err.Error())
		c.failed = true
		// The connection goes at once: the listener keeps the trace (its
		// peer sees only a reject).
		l := c.listener
		l.obj.change(func(s *state) {
			s.lastError = errorInfo(err)
			s.record(s.status, "accept failed", err.Error())
		})
		l.obj.agent.log.Warn("accept failed", "object", l.obj.address, "error", err.Error())
	}
}

// run starts what the accepted connection needs once it is registered: its
// echo loop, its end when ctx ends (a delete, the listener's or the agent's
// stop), and the handling of its events (those that arrived since the
// accept first).
func (c *connection) run(ctx context.Context) {
	if c.failed {
		go c.end()
		return
	}
	// The echo runs from the accept on: a probe the peer sends as soon as
	// it sees ESTABLISHED is answered without waiting for this side's
	// ESTABLISHED to be read.
	if ec := c.echoLoop(); ec != nil {
		c.echoDone = make(chan struct{})
		ectx, stopEcho := context.WithCancel(ctx)
		c.stopEcho = stopEcho
		go func() {
			defer close(c.echoDone)
			if err := ec.run(ectx); err != nil && !c.endedUnder(err) {
				// The QP failed (a completion's error status puts it in the
				// error state) or could not take a work request: the
				// connection carries nothing any more, though the CM knows
				// nothing of it. It is recorded with the QP's state and
				// ended, so that its peer learns of it (DISCONNECTED).
				facts := factsOf(c.id)
				c.obj.change(func(s *state) {
					if facts != nil {
						s.facts = facts
					}
					s.lastError = errorInfo(err)
					s.record(pb.Status_ERROR, "echo failed", err.Error())
				})
				c.obj.agent.log.Warn("echo failed: ending the connection", "object", c.obj.address, "err", err.Error())
				// The connection goes at its DISCONNECTED: its listener
				// keeps the trace.
				c.listener.obj.change(func(s *state) {
					s.lastError = errorInfo(err)
					s.record(s.status, "echo failed", fmt.Sprintf("%s: %v", c.obj.address, err))
				})
				c.id.Disconnect()
			}
		}()
	}
	context.AfterFunc(ctx, c.stop)
	c.id.OnEvents(c.handle)
}

// handle takes the connection's events on the event loop.
func (c *connection) handle(ev rdmacm.Event) {
	c.obj.agent.metrics.cmEvent(pb.Kind_CONNECTION, ev.Type)
	switch ev.Type {
	case rdmacm.Established:
		facts := factsOf(c.id)
		c.obj.change(func(s *state) {
			s.facts = facts
			s.connectedSince = time.Now()
			s.record(pb.Status_ESTABLISHED, ev.Type.String(), "")
		})
	case rdmacm.Disconnected:
		c.obj.event(pb.Status_DISCONNECTED, ev.Type.String(), "")
		c.markDisconnected()
		// Answer, so the peer need not wait for the CM timeout, and go.
		go func() { c.id.Disconnect(); c.end() }()
	case rdmacm.DeviceRemoval:
		c.obj.failure(pb.Status_ERROR, ev.Type.String(), &rdmacm.EventError{Op: "rdma_accept", Event: ev})
		c.markDisconnected()
		// The id goes now; the object stays visible with the device loss
		// until the listener goes (stop ends it).
		go c.closeID()
	default:
		if ev.Type.DeviceEvent() {
			c.obj.deviceEvent(ev)
			return
		}
		if ev.Err != nil {
			c.obj.failure(pb.Status_ERROR, "error", ev.Err) // the event loop failed
		} else {
			c.obj.failure(pb.Status_ERROR, ev.Type.String(), &rdmacm.EventError{Op: "rdma_accept", Event: ev})
		}
		c.markDisconnected()
		go c.end()
	}
}

// endedUnder reports whether err is the echo's id closed under it by the
// connection's own end (its DISCONNECTED or its device's removal): a
// consequence recorded already, not a failure of the echo.
func (c *connection) endedUnder(err error) bool {
	select {
	case <-c.disconnected:
		return errors.Is(err, rdmacm.ErrClosed)
	default:
		return false
	}
}

func (c *connection) markDisconnected() { c.discOnce.Do(func() { close(c.disconnected) }) }

// stop disconnects the connection, unless it is already down or a UD
// exchange, waits briefly for the peer's DISCONNECTED, so the peer sees an
// orderly end before the id is destroyed, and ends it.
func (c *connection) stop() {
	select {
	case <-c.disconnected:
	default:
		if !c.id.Connectionless() && c.id.Disconnect() == nil {
			t := time.NewTimer(disconnectWait)
			select {
			case <-c.disconnected:
			case <-t.C:
			}
			t.Stop()
		}
	}
	c.end()
}

// closeID ends and joins the echo loop, then destroys the id, so the loop
// never posts to or copies from a closing id.
func (c *connection) closeID() {
	if c.echoDone != nil {
		c.stopEcho()
		<-c.echoDone
	}
	c.id.Close()
}

// end destroys the id (after the echo loop) and removes the connection from
// the agent and its listener's count, once.
func (c *connection) end() {
	c.endOnce.Do(func() {
		c.closeID()
		a, l := c.obj.agent, c.listener
		if a.reg.remove(c.obj) {
			c.obj.markDeleted()
		}
		l.mu.Lock()
		l.active--
		l.mu.Unlock()
		l.obj.change(func(s *state) { s.connections-- })
		close(c.obj.done)
		l.children.Done()
	})
}

// echoer sends every message it receives back, with a receive always
// posted before the reply goes out so that the peer's next probe finds one.
// The first receive is posted before the accept; the second buffer is
// registered at the first message, so connections that are never probed
// cost one buffer.
type echoer struct {
	id     *rdmacm.ID
	bufs   [2]*rdmacm.Buffer
	memory *rdmacm.Buffer // one-sided probes' memory, at the first request (probe_onesided.go)
}

// newEchoer registers the first buffer and posts a receive into it.
func newEchoer(id *rdmacm.ID) (*echoer, error) {
	b, err := id.RegisterBuffer(MaxProbeSize)
	if err != nil {
		return nil, err
	}
	if err := id.PostRecv(b, 0); err != nil {
		return nil, err
	}
	return &echoer{id: id, bufs: [2]*rdmacm.Buffer{b}}, nil
}

// run echoes until the connection goes (a nil error: its events say why),
// a work request completes with an error (the QP failed) or posting fails.
func (e *echoer) run(ctx context.Context) error {
	for i := 0; ; i++ {
		cur := e.bufs[i%2]
		comp, err := e.id.WaitRecv(ctx)
		if err != nil {
			return echoError(ctx, err)
		}
		if e.bufs[1] == nil {
			if e.bufs[1], err = e.id.RegisterBuffer(MaxProbeSize); err != nil {
				return err
			}
		}
		if err := e.id.PostRecv(e.bufs[(i+1)%2], uint64(i+1)%(1<<31)); err != nil {
			return err
		}
		n, err := e.answer(cur, comp.Bytes)
		if err != nil {
			return err
		}
		if err := e.id.PostSend(cur, n, uint64(i)%(1<<31)); err != nil {
			return err
		}
		if _, err := e.id.WaitSend(ctx); err != nil {
			return echoError(ctx, err)
		}
	}
}

// echoError is what ends the echo loop: nothing when the connection is
// going (its events say why), else the QP's failure.
func echoError(ctx context.Context, err error) error {
	if ctx.Err() != nil || connectionGoing(err) {
		return nil
	}
	return err
}
