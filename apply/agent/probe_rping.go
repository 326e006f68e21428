package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm"
)

// A probe of mode "rping" is one ping of rping's exchange (rdma-core's
// librdmacm/examples/rping.c) with a host running `rping -s`, as its
// client: the endpoint SENDs its start buffer's address, rkey and size
// (struct rping_rdma_info: 8, 4 and 4 bytes in network byte order); the
// server RDMA READs the buffer and SENDs a go-ahead; the endpoint SENDs its
// sink buffer's; the server RDMA WRITEs what it read into the sink and
// SENDs a go-ahead; the endpoint compares the sink with the start buffer.
// The round trip is the whole ping's; a wrong message or a sink that
// differs is a lost probe, as a timeout is.

// rpingInfoSize is sizeof(struct rping_rdma_info), which the server
// requires of every message.
const rpingInfoSize = 16

// rping phases: where the exchange is between two messages.
const (
	rpingIdle     = iota // the next message is a start buffer's
	rpingReadAdv         // the start buffer's went; the go-ahead is awaited
	rpingWriteAdv        // the sink's went; the write's go-ahead is awaited
)

// rpingClient is a prober's state in rping's exchange. A ping that timed
// out leaves the server mid-exchange: the next probe finishes that ping
// first, so the messages stay in step.
type rpingClient struct {
	start, sink *rdmacm.Buffer // registered with remote access, MaxProbeSize each
	phase       int
	ping        int    // as rping's client counts them
	first       byte   // the pattern's first letter, as rping's client advances it
	want        []byte // the ping's start buffer, which the sink must get
}

// rpingTrip does one ping of cfg.size bytes.
func (p *prober) rpingTrip(ctx context.Context, cfg *probeConfig) (time.Duration, error) {
	tctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if p.rping == nil {
		// The server's RDMA READ toward a QP that allows none would wait
		// for ever, and the rping server with it.
		if err := qpAllows(p.id, func(a rdmacm.QPAttrs) int { return a.ResponderResources }, "ibv_query_qp",
			"the connection allows the rping server no RDMA READ of this side (max_dest_rd_atomic is 0): leave the endpoint's connect.responder_resources to the device or set it to 1 or more"); err != nil {
			return 0, err
		}
		r := &rpingClient{first: 'A'}
		var err error
		if r.start, err = p.id.RegisterRemoteBuffer(MaxProbeSize); err != nil {
			return 0, err
		}
		if r.sink, err = p.id.RegisterRemoteBuffer(MaxProbeSize); err != nil {
			r.start.Close()
			return 0, err
		}
		p.rping = r
	}
	r := p.rping
	if err := p.takeSends(tctx, cfg); err != nil {
		return 0, err
	}
	if err := p.postReplies(); err != nil {
		return 0, err
	}
	if r.phase != rpingIdle {
		// The last ping timed out: finish it, uncounted.
		if err := p.rpingStep(tctx, cfg); err != nil {
			return 0, err
		}
	}
	r.want = rpingPattern(r.ping, r.first, cfg.size)
	r.ping++
	if r.first++; r.first > 'z' {
		r.first = 'A'
	}
	if err := r.start.Store(r.want); err != nil {
		return 0, err
	}
	if err := r.sink.Store(make([]byte, cfg.size)); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := p.rpingSend(tctx, cfg, r.start, cfg.size); err != nil {
		return 0, err
	}
	r.phase = rpingReadAdv
	if err := p.rpingStep(tctx, cfg); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// rpingStep waits for the server's go-aheads until the ping in progress
// is done, sending the sink's message after the first, and checks the
// sink at the end.
func (p *prober) rpingStep(ctx context.Context, cfg *probeConfig) error {
	r := p.rping
	for r.phase != rpingIdle {
		msg, err := p.nextReply(ctx, rpingInfoSize)
		if err != nil {
			return timedOut(err, "no go-ahead from the rping server", cfg.timeout)
		}
		if len(msg) != rpingInfoSize {
			r.phase = rpingIdle
			return &agentError{Call: "ibv_poll_cq", Err: errProbeMismatch,
				Msg: fmt.Sprintf("the peer sent a message of %d bytes where rping's server sends %d: is it `rping -s`?", len(msg), rpingInfoSize)}
		}
		switch r.phase {
		case rpingReadAdv:
			if err := p.rpingSend(ctx, cfg, r.sink, len(r.want)); err != nil {
				return err
			}
			r.phase = rpingWriteAdv
		case rpingWriteAdv:
			r.phase = rpingIdle
			got, err := r.sink.Load(len(r.want))
			if err != nil {
				return err
			}
			if !bytes.Equal(got, r.want) {
				return &agentError{Call: "ibv_poll_cq", Err: errProbeMismatch,
					Msg: fmt.Sprintf("the rping server's RDMA WRITE left the sink differing from the ping's %d bytes at byte %d", len(r.want), firstDiff(got, r.want))}
			}
		}
	}
	return nil
}

// rpingSend sends buf's address, rkey and the ping's size, and waits for
// the send's completion.
func (p *prober) rpingSend(ctx context.Context, cfg *probeConfig, buf *rdmacm.Buffer, size int) error {
	m, err := buf.Remote()
	if err != nil {
		return err
	}
	var info [rpingInfoSize]byte
	binary.BigEndian.PutUint64(info[:], m.Addr)
	binary.BigEndian.PutUint32(info[8:], m.RKey)
	binary.BigEndian.PutUint32(info[12:], uint32(size))
	if err := p.msg.Store(info[:]); err != nil {
		return err
	}
	if err := p.id.PostSend(p.msg, rpingInfoSize, 0); err != nil {
		return err
	}
	p.sendPending++
	return p.takeSends(ctx, cfg)
}

// rpingPattern is the start buffer of ping n, as rping's client fills it:
// "rdma-ping-N: ", then letters from first on, cycling from 'A' to 'z',
// and a NUL at the end (the server writes back strlen + 1 bytes).
func rpingPattern(n int, first byte, size int) []byte {
	b := make([]byte, size)
	cc := copy(b, fmt.Sprintf("rdma-ping-%d: ", n))
	for i, c := cc, first; i < size; i++ {
		b[i] = c
		if c++; c > 'z' {
			c = 'A'
		}
	}
	b[size-1] = 0
	return b
}
