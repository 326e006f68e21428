//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// udEcho answers every message on the listener's own UD QP until ctx
// ends, as the agent's listener does: with several receives posted, so
// that a message that comes while a reply goes finds one (UD drops a
// message that finds none).
func udEcho(ctx context.Context, l *ID, done chan<- error) {
	var bufs []*Buffer
	for i := range 4 {
		b, err := l.RegisterBuffer(64 + GRHSize)
		if err == nil {
			err = l.PostRecv(b, uint64(i))
		}
		if err != nil {
			done <- err
			return
		}
		bufs = append(bufs, b)
	}
	for {
		c, err := l.WaitRecv(ctx)
		if err != nil {
			done <- nil // ctx ended
			return
		}
		b := bufs[c.WRID]
		if err := l.Reply(b, c, c.WRID); err != nil {
			done <- err
			return
		}
		if _, err := l.WaitSend(ctx); err != nil {
			if ctx.Err() != nil {
				err = nil // stopped while the last reply's completion came
			}
			done <- err
			return
		}
		if err := l.PostRecv(b, c.WRID); err != nil {
			done <- err
			return
		}
	}
}

// A UD listener has one QP, which every SIDR reply names and which lives
// as long as the listener; each UD client gets the address handle, QP
// number and Q_Key from its reply and exchanges messages with that QP,
// which answers each client through an address handle of its own.
func TestUDClientsExchangeWithTheListenersQP(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSUDP, &qp)
	lf, err := l.Facts()
	if err != nil || !lf.HasQP || lf.QPType != UD || lf.QPState != "RTS" {
		t.Fatalf("the UD listener has no QP in RTS of its own: %+v, %v", lf, err)
	}
	ctx := ctxFor(t, time.Minute)
	go func() {
		for {
			req, _, err := l.GetRequest(ctx)
			if err != nil {
				return
			}
			if err := req.Accept(ctx, ConnParam{}); err != nil {
				t.Errorf("rdma_accept of a UD request: %v", err)
			}
			req.Close() // the reply names the listener's QP, not the request's
		}
	}()
	echoCtx, stopEcho := context.WithCancel(ctx)
	echoDone := make(chan error, 1)
	go udEcho(echoCtx, l, echoDone)

	var clients []*ID
	for i := range 2 {
		c := dial(t, ch, testAddr(t), port, PSUDP, &qp)
		ev, err := c.Connect(ctx, ConnParam{})
		if err != nil {
			t.Fatalf("client %d: SIDR: %v", i, err)
		}
		if ev.QPNum != lf.QPNum {
			t.Fatalf("client %d: the SIDR reply names QP %d, the listener's is %d", i, ev.QPNum, lf.QPNum)
		}
		if qpn, qkey, ok := c.UDPeer(); !ok || qpn != lf.QPNum || qkey != ev.QKey {
			t.Fatalf("client %d: UDPeer %d %#x %v, want QP %d Q_Key %#x", i, qpn, qkey, ok, lf.QPNum, ev.QKey)
		}
		clients = append(clients, c)
	}
	for round := range 5 {
		for i, c := range clients {
			msg, err := c.RegisterBuffer(64)
			if err != nil {
				t.Fatal(err)
			}
			reply, err := c.RegisterBuffer(64 + GRHSize)
			if err != nil {
				t.Fatal(err)
			}
			want := []byte(fmt.Sprintf("client %d round %d", i, round))
			msg.Store(want)
			if err := c.PostRecv(reply, 1); err != nil {
				t.Fatal(err)
			}
			if err := c.PostSend(msg, len(want), 2); err != nil {
				t.Fatalf("client %d: UD send: %v", i, err)
			}
			if _, err := c.WaitSend(ctx); err != nil {
				t.Fatalf("client %d: UD send completion: %v", i, err)
			}
			var comp Completion
			select {
			case comp = <-recvOf(ctx, c):
			case err := <-echoDone:
				t.Fatalf("client %d: no echo: the listener's echo ended: %v", i, err)
			}
			if comp.Status != 0 {
				t.Fatalf("client %d: no echo: %s", i, comp.Text)
			}
			if comp.Bytes != GRHSize+len(want) || comp.SrcQP != lf.QPNum {
				t.Fatalf("client %d: echo of %d bytes from QP %d, want %d from %d", i, comp.Bytes, comp.SrcQP, GRHSize+len(want), lf.QPNum)
			}
			got, err := reply.LoadAt(GRHSize, len(want))
			if err != nil || string(got) != string(want) {
				t.Fatalf("client %d: echo %q, %v; want %q", i, got, err, want)
			}
			msg.Close()
			reply.Close()
		}
	}
	stopEcho()
	if err := <-echoDone; err != nil {
		t.Fatalf("the listener's echo: %v", err)
	}
	for _, c := range clients {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// recvOf delivers c's next receive completion (Status -1: none came).
func recvOf(ctx context.Context, c *ID) <-chan Completion {
	out := make(chan Completion, 1)
	go func() {
		comp, err := c.WaitRecv(ctx)
		if err != nil {
			comp = Completion{Status: -1, Text: err.Error()}
		}
		out <- comp
	}()
	return out
}
