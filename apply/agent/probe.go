package agent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// failedRun is how many probes in a row must time out for the run to count
// as failed, which makes an endpoint with a reconnect policy reconnect.
const failedRun = 3

// probeStats are an endpoint's round-trip statistics since it was created.
type probeStats struct {
	last, min, max, sum time.Duration
	sent, received      uint64
	lost                uint64
	consecutiveLost     uint32
	degraded            bool
	mode                string // of the last probe
}

func (p *probeStats) proto() *pb.ProbeStats {
	out := &pb.ProbeStats{
		Last: int64(p.last), Min: int64(p.min), Max: int64(p.max),
		Sent: p.sent, Received: p.received, Lost: p.lost,
		ConsecutiveLost: p.consecutiveLost, Degraded: p.degraded, Mode: p.mode,
	}
	if p.received > 0 {
		out.Mean = int64(p.sum / time.Duration(p.received))
	}
	return out
}

// add records one probe's outcome: its round trip, or lost.
func (p *probeStats) add(rtt time.Duration, lost bool) {
	p.sent++
	if lost {
		p.lost++
		p.consecutiveLost++
		p.degraded = true
		return
	}
	p.received++
	p.consecutiveLost = 0
	p.degraded = false
	p.last, p.sum = rtt, p.sum+rtt
	if p.received == 1 || rtt < p.min {
		p.min = rtt
	}
	if rtt > p.max {
		p.max = rtt
	}
}

// prober sends probes over one connection and matches replies by sequence
// number, so that a late reply is never taken for the current one. It
// keeps a receive posted in each of its reply buffers: the late echo of a
// probe that timed out takes one, and the next probe's echo finds the
// other, rather than meeting an empty receive queue (an RNR NAK, which
// after connect.rnr_retry_count retries puts the echoing QP in error).
type prober struct {
	id          *rdmacm.ID
	msg         *rdmacm.Buffer
	replies     []*rdmacm.Buffer // the receive of replies[i] has work request id i
	posted      []bool
	seq         uint64
	sendPending int          // sends, writes and reads whose completion was not yet taken
	oneSided    *oneSided    // mode write and read (probe_onesided.go)
	rping       *rpingClient // mode rping (probe_rping.go)
	grh         int          // where a reply starts in its buffer: rdmacm.GRHSize on UD
}

// replySlots is how many receives a prober keeps posted, when the QP's
// receive queue has room.
const replySlots = 2

// probeLoop probes at each interval while the probe config says so, until
// ctx ends. fail is called once, with why, when the connection is to end:
// after failedRun lost probes in a row when the endpoint has a reconnect
// policy, or at once when the QP failed (a completion's error status: the
// QP is in the error state, and carries nothing any more).
func (e *endpoint) probeLoop(ctx context.Context, id *rdmacm.ID, fail func(why string)) {
	var p *prober
	var wait *time.Timer
	degraded := false // as last logged
	for {
		cfg := e.probeConfig()
		if cfg == nil {
			select {
			case <-ctx.Done():
				return
			case <-e.probeKick:
				continue
			}
		}
		if p == nil {
			var err error
			if p, err = newProber(id, min(replySlots, max(1, int(e.cfg.qp.MaxRecvWR)))); err != nil {
				e.obj.failure(e.obj.status(), "probe", err)
				return
			}
		}
		start := time.Now()
		rtt, err := p.probe(ctx, cfg)
		if ctx.Err() != nil || errors.Is(err, rdmacm.ErrClosed) {
			return // the id was closed under it (its device's removal): the session says why
		}
		lost := err != nil
		e.obj.agent.metrics.probe(e.obj.address, rtt, lost)
		e.obj.change(func(s *state) {
			if s.probe == nil {
				s.probe = &probeStats{}
			}
			was := s.probe.degraded
			s.probe.add(rtt, lost)
			s.probe.mode = cfg.mode
			if lost {
				s.lastError = errorInfo(err)
			}
			switch {
			case s.probe.degraded && s.status == pb.Status_ESTABLISHED:
				s.record(pb.Status_DEGRADED, "probe lost", err.Error())
			case !s.probe.degraded && was && s.status == pb.Status_DEGRADED:
				s.record(pb.Status_ESTABLISHED, "probe answered", fmt.Sprintf("round trip %v", rtt))
			}
		})
		if lost != degraded {
			if lost {
				e.obj.agent.log.Warn("endpoint degraded: a probe was lost", "object", e.obj.address, "err", err.Error())
			} else {
				e.obj.agent.log.Info("endpoint answers probes again", "object", e.obj.address, "round_trip", rtt.String())
			}
			degraded = lost
		}
		if lost && !errors.Is(err, syscall.ETIMEDOUT) && !errors.Is(err, errProbeMismatch) {
			if connectionGoing(err) {
				return // its CM events say why
			}
			// The QP failed: probing it again is pointless, and the
			// connection is dead to data though the CM knows nothing.
			e.obj.agent.log.Warn("probe failed: ending the connection", "object", e.obj.address, "err", err.Error())
			fail("probe failed: " + err.Error())
			return
		}
		if lost && e.failedRun() && e.policy(true) != nil {
			fail(fmt.Sprintf("%d probes in a row lost", failedRun))
			return
		}
		// One timer for the loop, re-armed each interval (Reset needs no
		// drain since Go 1.23): a probe costs no new timer.
		d := max(0, cfg.interval-time.Since(start))
		if wait == nil {
			wait = time.NewTimer(d)
			defer wait.Stop()
		} else {
			wait.Reset(d)
		}
		select {
		case <-ctx.Done():
			return
		case <-e.probeKick:
			wait.Stop()
		case <-wait.C:
		}
	}
}

func (e *endpoint) failedRun() bool {
	e.obj.mu.Lock()
	defer e.obj.mu.Unlock()
	return e.obj.st.probe != nil && e.obj.st.probe.consecutiveLost >= failedRun
}

func newProber(id *rdmacm.ID, slots int) (*prober, error) {
	msg, err := id.RegisterBuffer(MaxProbeSize)
	if err != nil {
		return nil, err
	}
	p := &prober{id: id, msg: msg, posted: make([]bool, slots)}
	if id.QPType() == rdmacm.UD {
		p.grh = rdmacm.GRHSize
	}
	for range slots {
		reply, err := id.RegisterBuffer(MaxProbeSize + p.grh)
		if err != nil {
			for _, b := range append(p.replies, msg) {
				b.Close()
			}
			return nil, err
		}
		p.replies = append(p.replies, reply)
	}
	return p, nil
}

// alreadyDone is a context that has ended: a wait on it returns what is
// queued and nothing more (one for every probe, rather than one made per
// probe).
var alreadyDone = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// takeLateEchoes takes the receive completions already there, without
// waiting, marking their buffers to be posted again.
func (p *prober) takeLateEchoes() error {
	for {
		c, err := p.id.WaitRecv(alreadyDone)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		if err != nil {
			return err
		}
		if i := int(c.WRID); i < len(p.posted) {
			p.posted[i] = false
		}
	}
}

// connectionGoing tells a data-path error that only says the connection
// is ending (its work requests flushed, its id closed), which the CM's
// events report, from a failure of the QP itself.
func connectionGoing(err error) bool {
	var ce *rdmacm.CompletionError
	return errors.As(err, &ce) && ce.Flushed() || errors.Is(err, rdmacm.ErrClosed)
}

// timedOut is a probe's wait that ran out: a lost probe, as rping's
// ETIMEDOUT wait, rather than a failed QP.
func timedOut(err error, what string, timeout time.Duration) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &agentError{Call: "ibv_poll_cq", Err: syscall.ETIMEDOUT, Msg: fmt.Sprintf("%s within the probe timeout (%v)", what, timeout)}
}

// probe does one probe of cfg's mode.
func (p *prober) probe(ctx context.Context, cfg *probeConfig) (time.Duration, error) {
	switch cfg.mode {
	case probeWrite, probeRead:
		return p.oneSidedTrip(ctx, cfg)
	case probeRping:
		return p.rpingTrip(ctx, cfg)
	}
	return p.roundTrip(ctx, cfg)
}

// roundTrip sends one probe of cfg.size bytes carrying its sequence number
// and waits, up to cfg.timeout, for the echo carrying the same number.
func (p *prober) roundTrip(ctx context.Context, cfg *probeConfig) (time.Duration, error) {
	p.seq++
	tctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	// Echoes that came after their probe's timeout took receives: take
	// their completions and post those receives again before the probe
	// goes, so that its echo finds one.
	if err := p.takeLateEchoes(); err != nil {
		return 0, err
	}
	for i, b := range p.replies {
		if !p.posted[i] {
			if err := p.id.PostRecv(b, uint64(i)); err != nil {
				return 0, err
			}
			p.posted[i] = true
		}
	}
	// At most one send in flight: a send the peer never takes (it posts
	// no receive: it does not echo, and the RNR retries never end) would
	// otherwise be followed by one more per interval until the send
	// queue is full.
	for p.sendPending > 0 {
		if _, err := p.id.WaitSend(tctx); err != nil {
			return 0, timedOut(err, "no acknowledgement of the previous probe's send (the peer takes no message: does it echo?)", cfg.timeout)
		}
		p.sendPending--
	}
	var tag [8]byte
	binary.LittleEndian.PutUint64(tag[:], p.seq)
	n := min(cfg.size, len(tag))
	if err := p.msg.Store(tag[:n]); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := p.id.PostSend(p.msg, cfg.size, p.seq%(1<<31)); err != nil {
		return 0, err
	}
	p.sendPending++
	for p.sendPending > 0 {
		if _, err := p.id.WaitSend(tctx); err != nil {
			return 0, timedOut(err, "no acknowledgement of the probe's send", cfg.timeout)
		}
		p.sendPending--
	}
	for {
		c, err := p.id.WaitRecv(tctx)
		if err != nil {
			return 0, timedOut(err, "no echo of the probe", cfg.timeout)
		}
		i := int(c.WRID)
		if i >= len(p.replies) {
			return 0, fmt.Errorf("ibv_poll_cq: a receive completion with work request id %d, which no probe posted", c.WRID)
		}
		p.posted[i] = false
		got, err := p.replies[i].LoadAt(p.grh, max(0, min(c.Bytes-p.grh, n))) // ErrClosed once the id is closing
		if err != nil {
			return 0, err
		}
		match := len(got) == n && string(got) == string(tag[:n])
		if err := p.id.PostRecv(p.replies[i], uint64(i)); err != nil {
			return 0, err
		}
		p.posted[i] = true
		if match {
			return time.Since(start), nil
		}
		// A late echo of an earlier probe: wait on for this one's.
	}
}
