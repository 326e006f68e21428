package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm"
)

// One-sided probes (mode "write" and "read") are RDMA WRITEs into and
// READs from memory the echoing listener registers for the connection
// with remote read and write access. The endpoint learns where that memory
// is by asking, in the connection's first SEND of its own: the request
// (memoryRequest, 16 bytes) goes to the listener's echo, which answers it
// instead of echoing it with memoryReply followed, in network byte order,
// by the read region's address (8 bytes), the write region's address (8),
// their rkey (4) and each region's length (4). Asking, rather than the
// listener sending first or using the accept's private data, leaves the
// users' private data theirs and never sends to an endpoint that has no
// receive posted (an RNR NAK); a listener registers the memory only for
// connections that ask.
//
// The read region holds memoryPattern, which a read probe checks, so a
// read that moved no data is a lost probe; write probes write their
// sequence number into the write region, apart, so that reads still find
// the pattern whatever was written.
var (
	memoryRequest = []byte("rdmaform:memory?")
	memoryReply   = []byte("rdmaform:memory=")
)

// memoryReplySize is the reply's length: the prefix, two addresses, the
// rkey and the length.
var memoryReplySize = len(memoryReply) + 8 + 8 + 4 + 4

// memoryPattern is the first n bytes the listener keeps in its read region.
func memoryPattern(n int) []byte {
	const text = "rdmaform probe memory. "
	return bytes.Repeat([]byte(text), n/len(text)+1)[:n]
}

// errProbeMismatch is a probe whose answer came but was not the right
// one: lost, as a timeout is, without the QP having failed.
var errProbeMismatch = errors.New("counted as a lost probe")

// probeMemory is the listener's memory as the endpoint writes and reads it.
type probeMemory struct {
	read, write rdmacm.RemoteMemory
}

// oneSided is a prober's state for write and read probes.
type oneSided struct {
	asked   bool         // the request went (once: every answer is the same)
	memory  *probeMemory // nil until the listener answered
	refused error        // the listener echoed the request: it has no probe memory
	canRead error        // nil once the QP was seen to allow RDMA READs
	checked bool
}

// probeNeeds checks that the connection allows the probes' RDMA READs:
// the endpoint's own (mode read) or the rping server's toward it. Without
// them a READ waits for ever in the send queue.
func (c endpointConfig) probeNeeds(p *probeConfig) error {
	switch {
	case p == nil:
	case p.mode == probeRead && c.connect.InitiatorDepth == 0 && !c.autoInit:
		return fmt.Errorf("probe mode read needs connect.initiator_depth of 1 or more (RDMA READs outstanding), or left to the device")
	case p.mode == probeRping && c.connect.ResponderResources == 0 && !c.autoResp:
		return fmt.Errorf("probe mode rping needs connect.responder_resources of 1 or more (the rping server RDMA READs the endpoint's buffer), or left to the device")
	}
	return nil
}

// oneSidedTrip does one write or read probe of cfg.size bytes, asking for
// the listener's memory first if it has not answered yet.
func (p *prober) oneSidedTrip(ctx context.Context, cfg *probeConfig) (time.Duration, error) {
	tctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if p.oneSided == nil {
		p.oneSided = &oneSided{}
	}
	o := p.oneSided
	if o.refused != nil {
		return 0, o.refused
	}
	if err := p.takeSends(tctx, cfg); err != nil {
		return 0, err
	}
	if o.memory == nil {
		if err := p.askMemory(tctx, cfg); err != nil {
			return 0, err
		}
	}
	if cfg.mode == probeRead {
		if err := o.readsAllowed(p.id); err != nil {
			return 0, err
		}
	}
	p.seq++
	op, post, want := "rdma_post_write", p.id.PostWrite, rdmacm.OpcodeRDMAWrite
	remote := o.memory.write
	if cfg.mode == probeRead {
		op, post, want = "rdma_post_read", p.id.PostRead, rdmacm.OpcodeRDMARead
		remote = o.memory.read
		// Zeroed, so that a read that moved nothing cannot match.
		if err := p.msg.Store(make([]byte, cfg.size)); err != nil {
			return 0, err
		}
	} else {
		var tag [8]byte
		binary.BigEndian.PutUint64(tag[:], p.seq)
		if err := p.msg.Store(tag[:min(cfg.size, len(tag))]); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	if err := post(p.msg, cfg.size, remote, p.seq%(1<<31)); err != nil {
		return 0, err
	}
	p.sendPending++
	c, err := p.id.WaitSend(tctx)
	if err != nil {
		return 0, timedOut(err, "no completion of the probe's "+op[len("rdma_post_"):], cfg.timeout)
	}
	p.sendPending--
	rtt := time.Since(start)
	if c.Opcode != want {
		return 0, fmt.Errorf("ibv_poll_cq: the probe's %s completed as opcode %d, not %d", op, c.Opcode, want)
	}
	if cfg.mode == probeRead {
		got, err := p.msg.Load(cfg.size)
		if err != nil {
			return 0, err
		}
		if want := memoryPattern(cfg.size); !bytes.Equal(got, want) {
			return 0, &agentError{Call: "rdma_post_read", Err: errProbeMismatch,
				Msg: fmt.Sprintf("the %d bytes read differ from the listener's probe memory at byte %d", cfg.size, firstDiff(got, want))}
		}
	}
	return rtt, nil
}

// readsAllowed says, once, whether the connection lets this side RDMA
// READ: a READ that max_rd_atomic 0 leaves no room for waits in the send
// queue for ever, and every probe after it.
func (o *oneSided) readsAllowed(id *rdmacm.ID) error {
	if !o.checked {
		o.canRead = qpAllows(id, func(a rdmacm.QPAttrs) int { return a.InitiatorDepth }, "ibv_query_qp",
			"the connection allows this side no RDMA READ (max_rd_atomic is 0): the listener's accept.responder_resources or the endpoint's connect.initiator_depth is 0; leave them to the device or set them to 1 or more")
		o.checked = true
	}
	return o.canRead
}

// qpAllows is an error saying why when what the QP got (as ibv_query_qp
// reports it) is 0.
func qpAllows(id *rdmacm.ID, got func(rdmacm.QPAttrs) int, call, why string) error {
	a, ok, err := id.QPAttrs()
	if err != nil {
		return err
	}
	if ok && got(a) == 0 {
		return &agentError{Call: call, Err: errProbeMismatch, Msg: why}
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// takeSends takes the completions of sends, writes and reads still
// outstanding (a probe that timed out, a mode changed in place), so that
// the next completion is the next work request's.
func (p *prober) takeSends(ctx context.Context, cfg *probeConfig) error {
	for p.sendPending > 0 {
		if _, err := p.id.WaitSend(ctx); err != nil {
			return timedOut(err, "no completion of the previous probe's work request", cfg.timeout)
		}
		p.sendPending--
	}
	return nil
}

// askMemory sends the request for the listener's probe memory, once, and
// waits for the answer among the messages that come (late echoes of send
// probes are passed over).
func (p *prober) askMemory(ctx context.Context, cfg *probeConfig) error {
	o := p.oneSided
	if err := p.takeLateEchoes(); err != nil {
		return err
	}
	if err := p.postReplies(); err != nil {
		return err
	}
	if !o.asked {
		if err := p.msg.Store(memoryRequest); err != nil {
			return err
		}
		if err := p.id.PostSend(p.msg, len(memoryRequest), 0); err != nil {
			return err
		}
		p.sendPending++
		o.asked = true
		if err := p.takeSends(ctx, cfg); err != nil {
			return err
		}
	}
	for {
		msg, err := p.nextReply(ctx, memoryReplySize)
		if err != nil {
			return timedOut(err, "no answer to the request for the listener's probe memory (is the peer an rdmaform listener with accept { echo = true }?)", cfg.timeout)
		}
		if bytes.Equal(msg, memoryRequest) {
			o.refused = &agentError{Call: "ibv_post_send", Err: errProbeMismatch,
				Msg: "the listener echoed the request for its probe memory instead of answering it: its agent has no one-sided probes (upgrade it), or it is not an rdmaform listener"}
			return o.refused
		}
		if m, ok := parseMemoryReply(msg); ok {
			o.memory = m
			return nil
		}
		// A late echo of an earlier send probe.
	}
}

func parseMemoryReply(msg []byte) (*probeMemory, bool) {
	if len(msg) != memoryReplySize || !bytes.HasPrefix(msg, memoryReply) {
		return nil, false
	}
	b := msg[len(memoryReply):]
	read, write := binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])
	rkey, n := binary.BigEndian.Uint32(b[16:]), binary.BigEndian.Uint32(b[20:])
	return &probeMemory{
		read:  rdmacm.RemoteMemory{Addr: read, RKey: rkey, Len: n},
		write: rdmacm.RemoteMemory{Addr: write, RKey: rkey, Len: n},
	}, true
}

// postReplies posts a receive in each reply buffer that has none.
func (p *prober) postReplies() error {
	for i, b := range p.replies {
		if !p.posted[i] {
			if err := p.id.PostRecv(b, uint64(i)); err != nil {
				return err
			}
			p.posted[i] = true
		}
	}
	return nil
}

// nextReply waits for the next message, returns up to its first n bytes
// and posts its buffer's receive again.
func (p *prober) nextReply(ctx context.Context, n int) ([]byte, error) {
	c, err := p.id.WaitRecv(ctx)
	if err != nil {
		return nil, err
	}
	i := int(c.WRID)
	if i >= len(p.replies) {
		return nil, fmt.Errorf("ibv_poll_cq: a receive completion with work request id %d, which no probe posted", c.WRID)
	}
	p.posted[i] = false
	got, err := p.replies[i].Load(min(c.Bytes, n))
	if err != nil {
		return nil, err
	}
	if c.Bytes > n {
		got = append(got, make([]byte, c.Bytes-n)...) // only its length counts
	}
	if err := p.id.PostRecv(p.replies[i], uint64(i)); err != nil {
		return nil, err
	}
	p.posted[i] = true
	return got, nil
}

// answer turns a received message of n bytes in cur into the reply to
// send: the answer to a request for the probe memory, or the message
// itself. It returns the reply's length. The memory, registered at the
// first request, is two regions of MaxProbeSize: the first holds
// memoryPattern for reads, the second takes writes.
func (e *echoer) answer(cur *rdmacm.Buffer, n int) (int, error) {
	if n != len(memoryRequest) {
		return n, nil
	}
	got, err := cur.Load(n)
	if err != nil || !bytes.Equal(got, memoryRequest) {
		return n, err
	}
	if e.memory == nil {
		b, err := e.id.RegisterRemoteBuffer(2 * MaxProbeSize)
		if err != nil {
			return 0, err
		}
		if err := b.Store(memoryPattern(MaxProbeSize)); err != nil {
			return 0, err
		}
		e.memory = b
	}
	r, err := e.memory.Remote()
	if err != nil {
		return 0, err
	}
	reply := append([]byte(nil), memoryReply...)
	reply = binary.BigEndian.AppendUint64(reply, r.Addr)
	reply = binary.BigEndian.AppendUint64(reply, r.Addr+MaxProbeSize)
	reply = binary.BigEndian.AppendUint32(reply, r.RKey)
	reply = binary.BigEndian.AppendUint32(reply, MaxProbeSize)
	return len(reply), cur.Store(reply)
}
