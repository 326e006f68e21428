package agent

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// historyLimit bounds each object's history of events.
const historyLimit = 32

// object is one thing the agent holds: a protection domain, listener,
// endpoint or accepted connection. Its identity is fixed at creation; its
// state changes under mu, and every change takes the next agent-wide
// revision and reaches the watchers.
type object struct {
	agent     *Agent
	address   string
	token     string
	parent    string
	kind      pb.Kind
	pdAddress string // the protection domain it uses, or ""
	// impl is the kind's own part: *rdmacm.PD, *listener, *endpoint or
	// *connection. Set before the object is shared, never changed.
	impl any

	// ctx is what the object's goroutine runs in; cancel stops it, and it
	// closes its ids and then done. Both are set before the object is
	// registered (a PD has neither).
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	st state
}

// state is an object's changing part. Pointer fields are replaced, never
// modified in place, so snapshots may share them.
type state struct {
	revision       uint64
	deleted        bool
	status         pb.Status
	pdSpec         *pb.ProtectionDomainSpec
	listenerSpec   *pb.ListenerSpec
	endpointSpec   *pb.EndpointSpec
	facts          *pb.Facts
	lastEvent      string
	lastEventAt    time.Time
	lastError      *pb.ErrorInfo
	errorSummary   *pb.ErrorInfo // lastError without its message, for List's summary
	summary        *pb.Object    // the summary at revision, reused until the next change
	summaryWire    []byte        // summary as ListResponse.objects encodes it (tag, length, bytes)
	createdAt      time.Time
	statusSince    time.Time
	connectedSince time.Time
	reconnects     uint32
	probe          *probeStats
	connections    uint32
	acceptedTotal  uint32
	rejectedTotal  uint32
	rejectReason   string
	// receivedPrivateData is what the peer sent, as receivedPrivateData
	// trims it: the connect request's (a connection), the accept's (an
	// endpoint).
	receivedPrivateData []byte
	history             []*pb.HistoryEvent
	// kernel is the kernel's verdict on the object (kernelview.go).
	kernel *pb.KernelCheck
	// srq is a listener's id when its spec has an SRQ (srq.go).
	srq srqHolder
}

func (a *Agent) newObject(addr, token, parent string, kind pb.Kind) *object {
	now := time.Now()
	o := &object{
		agent: a, address: addr, token: token, parent: parent, kind: kind,
		done: make(chan struct{}),
	}
	o.st = state{status: pb.Status_CREATING, createdAt: now, statusSince: now}
	o.st.record(pb.Status_CREATING, "created", "")
	o.st.revision = a.revision.Add(1)
	return o
}

// change applies f to the state and publishes the result.
func (o *object) change(f func(*state)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.st.deleted {
		return
	}
	lastError, was := o.st.lastError, o.st.status
	f(&o.st)
	if was != o.st.status {
		o.agent.statusChanges.Add(1)
		o.agent.metrics.transition(o.kind, was, o.st.status)
		// The event's name only: its detail may quote private data.
		o.agent.log.Debug("status", "object", o.address, "kind", KindWord(o.kind), "from", StatusWord(was), "to", StatusWord(o.st.status), "event", o.st.lastEvent)
	}
	if o.st.lastError != lastError {
		o.st.errorSummary = nil
	}
	o.st.revision = o.agent.revision.Add(1)
	if o.agent.hub.wants(o.address, o.kind, o.st.status) {
		o.agent.hub.publish(&pb.Change{Object: o.snapshotLocked(true)})
	}
}

// announce publishes the object's current state, as its creation.
func (o *object) announce() { o.change(func(*state) {}) }

// markDeleted publishes the object's removal; later changes are dropped.
func (o *object) markDeleted() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.st.deleted {
		return
	}
	o.st.deleted = true
	o.st.revision = o.agent.revision.Add(1)
	o.agent.statusChanges.Add(1)
	o.agent.metrics.forget(o.address)
	o.agent.hub.publish(&pb.Change{Deleted: true, Object: &pb.Object{
		Address: o.address, Parent: o.parent, Kind: o.kind, Revision: o.st.revision,
	}})
}

// event records an event and the status it leads to.
func (o *object) event(status pb.Status, name, detail string) {
	o.change(func(s *state) { s.record(status, name, detail) })
}

// failure records a failed call: the status it leads to, the event, and
// the error as the object's last error.
func (o *object) failure(status pb.Status, name string, err error) {
	o.change(func(s *state) {
		s.lastError = errorInfo(err)
		s.record(status, name, err.Error())
	})
	// The log tells what went wrong after the object is gone from List.
	o.agent.log.Warn("failure", "object", o.address, "status", status.String(), "event", name, "err", err.Error())
}

// deviceEvent records a device event (a port down or up, a QP or CQ in
// error, completions that can no longer be read) on the object it
// concerns, keeping its status: the CM's events say whether the
// connection ends. One that reports a failure is the object's last error.
func (o *object) deviceEvent(ev rdmacm.Event) {
	if ev.Err != nil {
		o.failure(o.status(), ev.Type.String(), &agentError{Call: ev.Type.String(), Msg: ev.Err.Error()})
		return
	}
	detail := ev.String()
	switch ev.Type {
	case rdmacm.PortError:
		detail = fmt.Sprintf("port %d of the device is down", ev.Status)
	case rdmacm.PortActive:
		detail = fmt.Sprintf("port %d of the device is up again", ev.Status)
	}
	o.event(o.status(), ev.Type.String(), detail)
}

func (s *state) record(status pb.Status, name, detail string) {
	now := time.Now()
	if status != s.status {
		s.status, s.statusSince = status, now
	}
	if status != pb.Status_ESTABLISHED && status != pb.Status_DEGRADED {
		s.connectedSince = time.Time{}
	}
	s.lastEvent, s.lastEventAt = name, now
	h := append(s.history, &pb.HistoryEvent{At: now.UnixNano(), Name: name, Detail: detail, Status: status})
	if len(h) > historyLimit {
		h = append([]*pb.HistoryEvent(nil), h[len(h)-historyLimit:]...)
	}
	s.history = h
}

func (o *object) status() pb.Status {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.st.status
}

// summary is List's default view of the object: its live status without
// spec, facts or messages, small enough to list 10,000 objects quickly.
func (o *object) summary() *pb.Object {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.summaryLocked()
}

// appendSummaryWire appends the object's summary as one element of
// ListResponse.objects (field 1: tag, length, message), encoded once per
// revision, so that List copies bytes instead of marshalling.
func (o *object) appendSummaryWire(b []byte) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := &o.st
	if s.summaryWire == nil || s.summary == nil || s.summary.Revision != s.revision {
		m := o.summaryLocked()
		raw, err := proto.Marshal(m)
		if err != nil {
			panic(err) // a message of our own making always marshals
		}
		w := make([]byte, 0, len(raw)+8)
		w = protowire.AppendTag(w, listObjectsField, protowire.BytesType)
		s.summaryWire = protowire.AppendBytes(w, raw)
	}
	return append(b, s.summaryWire...)
}

// listObjectsField is ListResponse.objects' field number.
var listObjectsField = protowire.Number((&pb.ListResponse{}).ProtoReflect().Descriptor().Fields().ByName("objects").Number())

func (o *object) summaryLocked() *pb.Object {
	s := &o.st
	if s.summary != nil && s.summary.Revision == s.revision {
		return s.summary // messages are never modified once made
	}
	if s.lastError != nil && s.errorSummary == nil {
		e := s.lastError
		s.errorSummary = &pb.ErrorInfo{Call: e.Call, Errno: e.Errno, ErrnoName: e.ErrnoName, At: e.At}
	}
	out := &pb.Object{
		Address:        o.address,
		Parent:         o.parent,
		Kind:           o.kind,
		Status:         s.status,
		Revision:       s.revision,
		Token:          o.token, // plan compares it with the state's
		LastEvent:      s.lastEvent,
		LastEventAt:    unixNano(s.lastEventAt),
		LastError:      s.errorSummary,
		ConnectedSince: unixNano(s.connectedSince),
		Reconnects:     s.reconnects,
		Connections:    s.connections,
	}
	if s.probe != nil {
		out.Probe = s.probe.proto()
	}
	s.summary, s.summaryWire = out, nil
	return out
}

func (o *object) snapshot(withHistory bool) *pb.Object {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.snapshotLocked(withHistory)
}

func (o *object) snapshotLocked(withHistory bool) *pb.Object {
	s := &o.st
	out := &pb.Object{
		Address:        o.address,
		Parent:         o.parent,
		Kind:           o.kind,
		Status:         s.status,
		Revision:       s.revision,
		Token:          o.token,
		Facts:          s.facts,
		LastEvent:      s.lastEvent,
		LastEventAt:    unixNano(s.lastEventAt),
		LastError:      s.lastError,
		CreatedAt:      unixNano(s.createdAt),
		StatusSince:    unixNano(s.statusSince),
		ConnectedSince: unixNano(s.connectedSince),
		Reconnects:     s.reconnects,
		Connections:    s.connections,
		AcceptedTotal:  s.acceptedTotal,
		RejectedTotal:  s.rejectedTotal,
		RejectReason:   s.rejectReason,

		ReceivedPrivateData: s.receivedPrivateData,
		Kernel:              s.kernel,
		Srq:                 srqStats(s.srq),
	}
	switch {
	case s.pdSpec != nil:
		out.Spec = &pb.Object_ProtectionDomain{ProtectionDomain: s.pdSpec}
	case s.listenerSpec != nil:
		out.Spec = &pb.Object_Listener{Listener: s.listenerSpec}
	case s.endpointSpec != nil:
		out.Spec = &pb.Object_Endpoint{Endpoint: s.endpointSpec}
	}
	if s.probe != nil {
		out.Probe = s.probe.proto()
	}
	if withHistory {
		out.History = s.history[:len(s.history):len(s.history)]
	}
	return out
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// factsOf reads an id's live facts for the API; nil when they cannot be read.
func factsOf(id *rdmacm.ID) *pb.Facts {
	f, err := id.Facts()
	if err != nil {
		return nil
	}
	out := &pb.Facts{Device: f.Device, Port: int32(f.PortNum), QpState: f.QPState}
	if f.Local.IsValid() {
		out.LocalAddr = f.Local.String()
	}
	if f.Remote.IsValid() && f.Remote.Port() != 0 {
		out.RemoteAddr = f.Remote.String()
	}
	if f.HasQP {
		out.QpNum, out.QpType, out.RemoteQpNum, out.RemoteQkey = f.QPNum, f.QPType.String(), f.RemoteQPNum, f.RemoteQKey
		out.QpAttrs = qpAttrsOf(id)
	}
	return out
}

// receivedPrivateData is the private data the peer sent with ev (the
// connect request a listener accepted, the accept an endpoint's connect
// got), without the trailing zeros IB CM messages pad it with; nil when
// there is none.
func receivedPrivateData(ev rdmacm.Event) []byte {
	if b := trimZeros(ev.PrivateData); len(b) > 0 {
		return b
	}
	return nil
}

// rejectText is the private data of a reject as the endpoint's reject
// reason, a string of the API, which must be UTF-8 (protobuf refuses to
// marshal a proto3 string that is not, and the agent's list would fail):
// text as the listener sent it; other bytes, such as a binary
// reject_private_data_base64, as "hex " and their hexadecimal, as status
// shows received private data that is not text.
func rejectText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "hex " + hex.EncodeToString(b)
}

// errorInfo turns an error into the API's last error: the call that failed
// and its errno, when the error says.
func errorInfo(err error) *pb.ErrorInfo {
	info := &pb.ErrorInfo{Message: err.Error(), At: time.Now().UnixNano()}
	var op *rdmacm.OpError
	var ev *rdmacm.EventError
	var ai *rdmacm.AddrInfoError
	var ce *rdmacm.CompletionError
	var ag *agentError
	switch {
	case errors.As(err, &ag):
		info.Call = ag.Call
	case errors.As(err, &op):
		info.Call = op.Op
	case errors.As(err, &ev):
		info.Call = ev.Call()
	case errors.As(err, &ai):
		info.Call, info.ErrnoName = "rdma_getaddrinfo", ai.Name()
	case errors.As(err, &ce):
		info.Call = "ibv_poll_cq"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		info.Errno, info.ErrnoName = int32(errno), unix.ErrnoName(errno)
	}
	return info
}

// agentError is a failure the agent detects itself, named after the call
// or event it concerns.
type agentError struct {
	Call string
	Err  error
	Msg  string
}

func (e *agentError) Error() string {
	if e.Err != nil {
		return e.Call + ": " + e.Msg + ": " + e.Err.Error()
	}
	return e.Call + ": " + e.Msg
}

func (e *agentError) Unwrap() error { return e.Err }
