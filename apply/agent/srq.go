package agent

import (
	"context"
	"fmt"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// A listener with an srq block has its connections' QPs receive from one
// shared receive queue: a listener that accepts thousands posts receives
// for the messages in flight, not a queue of them for every connection.
// rdmacm makes the SRQ (at the listen, or at the first request of a
// listener on every address), routes each receive to its connection and
// destroys the SRQ after the last QP on it.

// srqOf is a listener spec's SRQ, checked: the configuration's rules, for
// a client that did not check them.
func srqOf(s *pb.ListenerSpec, qt rdmacm.QPType) (*rdmacm.SRQInit, error) {
	q := s.GetSrq()
	if q == nil {
		return nil, nil
	}
	if s.Qp == nil || qt != rdmacm.RC {
		return nil, fmt.Errorf("srq: a shared receive queue serves the QPs of accepted RC connections; this listener's are %s: give it a qp block of type rc, or remove the srq block", qpWord(s.Qp, qt))
	}
	if q.MaxRecvWr == 0 || q.MaxRecvSge == 0 {
		return nil, fmt.Errorf("srq: max_recv_wr (%d) and max_recv_sge (%d) must be at least 1", q.MaxRecvWr, q.MaxRecvSge)
	}
	return &rdmacm.SRQInit{MaxWR: q.MaxRecvWr, MaxSGE: q.MaxRecvSge, SlotSize: MaxProbeSize}, nil
}

func qpWord(q *pb.QP, qt rdmacm.QPType) string {
	if q == nil {
		return "none (no qp block)"
	}
	return qt.String()
}

// srqHolder is what a listener's state asks for its SRQ.
type srqHolder interface{ SRQ() *rdmacm.SRQ }

// useSRQ has the listening id make its requests' QPs on an SRQ, when the
// spec has one, and its status show it.
func (l *listener) useSRQ(id *rdmacm.ID) error {
	if l.cfg.srq == nil {
		return nil
	}
	if err := id.UseSRQ(*l.cfg.srq); err != nil {
		return err
	}
	l.obj.change(func(s *state) { s.srq = id })
	return nil
}

// srqStats is a listener's SRQ for its status, nil without one (or before
// a listener on every address made it).
func srqStats(h srqHolder) *pb.SRQStats {
	if h == nil {
		return nil
	}
	s := h.SRQ()
	if s == nil {
		return nil
	}
	st := s.Stats()
	return &pb.SRQStats{MaxRecvWr: uint32(st.MaxWR), MaxRecvSge: uint32(st.MaxSGE), Posted: uint32(st.Posted), Device: st.Device}
}

// echoLoop is a connection's echo: with receives of its own, or on the
// listener's SRQ.
type echoLoop interface {
	run(ctx context.Context) error
}

func (c *connection) echoLoop() echoLoop {
	switch {
	case c.srqEcho != nil:
		return c.srqEcho
	case c.echo != nil:
		return c.echo
	}
	return nil
}

// srqEchoer echoes a connection's messages from the SRQ slots they
// arrived in, and posts each slot again once its reply is sent: the
// connection holds no buffer of its own.
type srqEchoer struct {
	id  *rdmacm.ID
	srq *rdmacm.SRQ
}

// run echoes until the connection goes (a nil error: its events say why),
// a work request completes with an error or posting fails.
func (e *srqEchoer) run(ctx context.Context) error {
	if e.srq == nil {
		return fmt.Errorf("echo: the connection's QP receives from no SRQ")
	}
	for i := uint64(0); ; i++ {
		comp, err := e.id.WaitRecv(ctx)
		if err != nil {
			return echoError(ctx, err)
		}
		slot := int(comp.WRID)
		err = e.id.PostSendSRQ(slot, comp.Bytes, i%(1<<31))
		if err == nil {
			_, err = e.id.WaitSend(ctx)
		}
		// The slot goes back whatever became of the reply: on a failed or
		// cancelled send the QP is going, and nothing reads the slot after.
		if rerr := e.srq.Repost(slot); err == nil {
			err = rerr
		}
		if err != nil {
			return echoError(ctx, err)
		}
	}
}
