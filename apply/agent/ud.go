package agent

import (
	"context"
	"fmt"
	"sync"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// A UD listener makes no connections: it answers each SIDR request with
// the number and Q_Key of one QP of its own, which lives as long as the
// listener, and with echo it answers every probe that reaches that QP,
// back to the QP that sent it. A UD endpoint probes that QP over its own,
// through the address handle its SIDR reply gave.

// probes reports whether an endpoint of QP type t can probe (and a
// listener of that type echo): RC over its connection, UD toward its
// listener's QP.
func probes(t rdmacm.QPType) bool { return t == rdmacm.RC || t == rdmacm.UD }

// maxUDEchoSlots bounds the receives a UD listener keeps posted: a UD
// message that finds none is dropped (there is no RNR retry), so several
// wait for the endpoints' probes while a reply goes out.
const maxUDEchoSlots = 16

// startUDEcho starts the echo of a UD listener's own QP, when the listener
// echoes; stop ends it and waits for it (promptly: its waits take the
// context).
func (l *listener) startUDEcho(ctx context.Context, id *rdmacm.ID, facts *pb.Facts) (stop func()) {
	if !l.cfg.echo || l.cfg.qpType != rdmacm.UD {
		return func() {}
	}
	if facts == nil || facts.QpNum == 0 {
		// A wildcard address: no device, so no QP of its own to echo on.
		l.obj.event(l.obj.status(), "echo", "a UD listener on a wildcard address has no QP of its own to echo on: give it one of the host's addresses")
		return func() {}
	}
	ectx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := l.udEcho(ectx, id); err != nil {
			l.obj.change(func(s *state) {
				s.lastError = errorInfo(err)
				s.record(s.status, "echo failed", err.Error())
			})
			l.obj.agent.log.Warn("UD echo failed", "object", l.obj.address, "err", err.Error())
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// udEcho answers each message on the listener's QP until ctx ends, with
// receives of the largest probe and its GRH posted in every slot. A reply
// that cannot be addressed (no address handle back to its sender) is
// recorded and the echo goes on; a failed work request ends it.
func (l *listener) udEcho(ctx context.Context, id *rdmacm.ID) error {
	slots := min(maxUDEchoSlots, max(1, int(l.cfg.qp.MaxRecvWR)))
	bufs := make([]*rdmacm.Buffer, slots)
	for i := range bufs {
		b, err := id.RegisterBuffer(MaxProbeSize + rdmacm.GRHSize)
		if err == nil {
			err = id.PostRecv(b, uint64(i))
		}
		if err != nil {
			return echoError(ctx, err)
		}
		bufs[i] = b
	}
	for {
		c, err := id.WaitRecv(ctx)
		if err != nil {
			return echoError(ctx, err)
		}
		if c.WRID >= uint64(len(bufs)) {
			return fmt.Errorf("ibv_poll_cq: a receive completion with work request id %d, which the echo never posted", c.WRID)
		}
		b := bufs[c.WRID]
		if err := id.Reply(b, c, c.WRID); err != nil {
			if echoError(ctx, err) == nil {
				return nil
			}
			l.obj.change(func(s *state) {
				s.lastError = errorInfo(err)
				s.record(s.status, "echo", fmt.Sprintf("a probe from QP %d not answered: %v", c.SrcQP, err))
			})
		} else if _, err := id.WaitSend(ctx); err != nil {
			return echoError(ctx, err)
		}
		if err := id.PostRecv(b, c.WRID); err != nil {
			return echoError(ctx, err)
		}
	}
}
