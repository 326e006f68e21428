package agent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
}

func (p *probeStats) proto() *pb.ProbeStats {
	out := &pb.ProbeStats{
		Last: int64(p.last), Min: int64(p.min), Max: int64(p.max),
		Sent: p.sent, Received: p.received, Lost: p.lost,
		ConsecutiveLost: p.consecutiveLost, Degraded: p.degraded,
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
// number, so that a late reply is never taken for the current one.
type prober struct {
	id          *rdmacm.ID
	msg, reply  *rdmacm.Buffer
	seq         uint64
	recvPosted  bool
	sendPending int // sends whose completion was not yet taken
}

// probeLoop probes at each interval while the probe config says so, until
// ctx ends; fail is called once after failedRun lost probes in a row when
// the endpoint has a reconnect policy.
func (e *endpoint) probeLoop(ctx context.Context, id *rdmacm.ID, fail func()) {
	var p *prober
	var wait *time.Timer
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
			if p, err = newProber(id); err != nil {
				e.obj.failure(e.obj.status(), "probe", err)
				return
			}
		}
		start := time.Now()
		rtt, err := p.roundTrip(ctx, cfg)
		if ctx.Err() != nil {
			return
		}
		lost := err != nil
		e.obj.change(func(s *state) {
			if s.probe == nil {
				s.probe = &probeStats{}
			}
			was := s.probe.degraded
			s.probe.add(rtt, lost)
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
		if lost && e.failedRun() && e.policy() != nil {
			fail()
			return
		}
		if lost && !errors.Is(err, context.DeadlineExceeded) {
			// The QP failed (a completion error): probing it again is
			// pointless; its CM events will say what happened.
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

func newProber(id *rdmacm.ID) (*prober, error) {
	msg, err := id.RegisterBuffer(maxProbeSize)
	if err != nil {
		return nil, err
	}
	reply, err := id.RegisterBuffer(maxProbeSize)
	if err != nil {
		msg.Close()
		return nil, err
	}
	return &prober{id: id, msg: msg, reply: reply}, nil
}

// roundTrip sends one probe of cfg.size bytes carrying its sequence number
// and waits, up to cfg.timeout, for the echo carrying the same number.
func (p *prober) roundTrip(ctx context.Context, cfg *probeConfig) (time.Duration, error) {
	p.seq++
	tctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if !p.recvPosted {
		if err := p.id.PostRecv(p.reply, 0); err != nil {
			return 0, err
		}
		p.recvPosted = true
	}
	// At most one send in flight: a send the peer never takes (it posts
	// no receive: it does not echo, and the RNR retries never end) would
	// otherwise be followed by one more per interval until the send
	// queue is full.
	for p.sendPending > 0 {
		if _, err := p.id.WaitSend(tctx); err != nil {
			return 0, fmt.Errorf("the previous probe's send has not completed (does the peer echo?): %w", err)
		}
		p.sendPending--
	}
	var tag [8]byte
	binary.LittleEndian.PutUint64(tag[:], p.seq)
	n := min(cfg.size, len(tag))
	copy(p.msg.Bytes(), tag[:n])
	start := time.Now()
	if err := p.id.PostSend(p.msg, cfg.size, p.seq%(1<<31)); err != nil {
		return 0, err
	}
	p.sendPending++
	for p.sendPending > 0 {
		if _, err := p.id.WaitSend(tctx); err != nil {
			return 0, err
		}
		p.sendPending--
	}
	for {
		c, err := p.id.WaitRecv(tctx)
		if err != nil {
			return 0, err
		}
		p.recvPosted = false
		buf := p.reply.Bytes() // nil once the id is closing
		if len(buf) < n {
			return 0, rdmacm.ErrClosed
		}
		got := buf[:min(c.Bytes, n)]
		match := len(got) == n && string(got) == string(tag[:n])
		if err := p.id.PostRecv(p.reply, 0); err != nil {
			return 0, err
		}
		p.recvPosted = true
		if match {
			return time.Since(start), nil
		}
		// A late echo of an earlier probe: wait on for this one's.
	}
}
