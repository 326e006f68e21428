package agent

import (
	"sync"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// tableBuilder makes List's SummaryTable, one row per object.
type tableBuilder struct {
	t                      *pb.SummaryTable
	addrs, tokens, parents []byte
	// The rows' times as Unix nanoseconds (0: none), sent relative to the
	// newest once every row is in (encodeTimes).
	eventAt, errAt, connectedAt []int64
	events                      map[string]uint32
	errs                        map[errorKey]uint32
	// The previous row's dictionary entries: neighbours often share them,
	// and a comparison is cheaper than a map lookup.
	lastEvent      string
	lastEventIndex uint32
	lastErr        errorKey
	lastErrIndex   uint32
}

type errorKey struct {
	call, errnoName string
	errno           int32
}

func newTableBuilder(rows int) *tableBuilder {
	return &tableBuilder{
		t: &pb.SummaryTable{
			AddressEnds: make([]uint32, 0, rows), TokenEnds: make([]uint32, 0, rows), ParentEnds: make([]uint32, 0, rows),
			Kinds: make([]pb.Kind, 0, rows), Statuses: make([]pb.Status, 0, rows), Revisions: make([]uint64, 0, rows),
			LastEvents: make([]uint32, 0, rows), LastEventBefore: make([]uint64, 0, rows),
			LastErrors: make([]uint32, 0, rows), LastErrorBefore: make([]uint64, 0, rows),
			ConnectedBefore: make([]uint64, 0, rows), Reconnects: make([]uint32, 0, rows), Connections: make([]uint32, 0, rows),
		},
		addrs: make([]byte, 0, rows*24), tokens: make([]byte, 0, rows*40),
		eventAt: make([]int64, 0, rows), errAt: make([]int64, 0, rows), connectedAt: make([]int64, 0, rows),
		events: make(map[string]uint32), errs: make(map[errorKey]uint32),
	}
}

// add appends o's row.
func (b *tableBuilder) add(o *object) {
	t := b.t
	b.addrs = append(b.addrs, o.address...)
	b.tokens = append(b.tokens, o.token...)
	b.parents = append(b.parents, o.parent...)
	t.AddressEnds = append(t.AddressEnds, uint32(len(b.addrs)))
	t.TokenEnds = append(t.TokenEnds, uint32(len(b.tokens)))
	t.ParentEnds = append(t.ParentEnds, uint32(len(b.parents)))
	t.Kinds = append(t.Kinds, o.kind)

	o.mu.Lock()
	defer o.mu.Unlock()
	s := &o.st
	t.Statuses = append(t.Statuses, s.status)
	t.Revisions = append(t.Revisions, s.revision)
	ev, ok := b.lastEventIndex, len(t.EventNames) > 0 && s.lastEvent == b.lastEvent
	if !ok {
		if ev, ok = b.events[s.lastEvent]; !ok {
			ev = uint32(len(t.EventNames))
			b.events[s.lastEvent] = ev
			t.EventNames = append(t.EventNames, s.lastEvent)
		}
		b.lastEvent, b.lastEventIndex = s.lastEvent, ev
	}
	t.LastEvents = append(t.LastEvents, ev)
	b.eventAt = append(b.eventAt, unixNano(s.lastEventAt))
	var errIndex uint32
	var errAt int64
	if e := s.lastError; e != nil {
		k := errorKey{call: e.Call, errnoName: e.ErrnoName, errno: e.Errno}
		if errIndex = b.lastErrIndex; errIndex == 0 || k != b.lastErr {
			if errIndex, ok = b.errs[k]; !ok {
				t.Errors = append(t.Errors, &pb.ErrorInfo{Call: e.Call, Errno: e.Errno, ErrnoName: e.ErrnoName})
				errIndex = uint32(len(t.Errors))
				b.errs[k] = errIndex
			}
			b.lastErr, b.lastErrIndex = k, errIndex
		}
		errAt = e.At
	}
	t.LastErrors = append(t.LastErrors, errIndex)
	b.errAt = append(b.errAt, errAt)
	b.connectedAt = append(b.connectedAt, unixNano(s.connectedSince))
	t.Reconnects = append(t.Reconnects, s.reconnects)
	t.Connections = append(t.Connections, s.connections)
	if s.probe != nil {
		t.ProbeRows = append(t.ProbeRows, uint32(len(t.AddressEnds)-1))
		t.Probes = append(t.Probes, s.probe.proto())
	}
}

// encodeTimes fills the table's time columns, each time as how long before
// the newest it is.
func (b *tableBuilder) encodeTimes() {
	t := b.t
	var base int64
	for _, col := range [][]int64{b.eventAt, b.errAt, b.connectedAt} {
		for _, v := range col {
			base = max(base, v)
		}
	}
	t.TimeBase = base
	t.LastEventBefore = appendBefore(t.LastEventBefore, b.eventAt, base)
	t.LastErrorBefore = appendBefore(t.LastErrorBefore, b.errAt, base)
	t.ConnectedBefore = appendBefore(t.ConnectedBefore, b.connectedAt, base)
}

func appendBefore(dst []uint64, times []int64, base int64) []uint64 {
	for _, v := range times {
		var d uint64
		if v != 0 {
			d = uint64(base-v) + 1
		}
		dst = append(dst, d)
	}
	return dst
}

// reset empties the builder for another table, keeping its buffers.
func (b *tableBuilder) reset() {
	o := b.t
	clear(o.Probes) // drop the pointers the pool would keep alive
	b.t = &pb.SummaryTable{
		AddressEnds: o.AddressEnds[:0], TokenEnds: o.TokenEnds[:0], ParentEnds: o.ParentEnds[:0],
		Kinds: o.Kinds[:0], Statuses: o.Statuses[:0], Revisions: o.Revisions[:0],
		LastEvents: o.LastEvents[:0], LastEventBefore: o.LastEventBefore[:0],
		LastErrors: o.LastErrors[:0], LastErrorBefore: o.LastErrorBefore[:0],
		ConnectedBefore: o.ConnectedBefore[:0], Reconnects: o.Reconnects[:0], Connections: o.Connections[:0],
		ProbeRows: o.ProbeRows[:0], Probes: o.Probes[:0],
	}
	b.addrs, b.tokens, b.parents = b.addrs[:0], b.tokens[:0], b.parents[:0]
	b.eventAt, b.errAt, b.connectedAt = b.eventAt[:0], b.errAt[:0], b.connectedAt[:0]
	clear(b.events)
	clear(b.errs)
	b.lastEvent, b.lastEventIndex, b.lastErr, b.lastErrIndex = "", 0, errorKey{}, 0
}

// tablePool keeps builders between Lists: 10,000 rows make about 1.5 MB
// of columns, which as garbage of every List would cost GC time.
var tablePool sync.Pool

// listTableField is ListResponse.table's field number.
var listTableField = protowire.Number((&pb.ListResponse{}).ProtoReflect().Descriptor().Fields().ByName("table").Number())

// listTableWire is List's summaries of the objects f matches as one
// SummaryTable, sorted by address, encoded as ListResponse.table (tag,
// length, message). The columns are built in pooled buffers and encoded
// before they are reused, so a List allocates little more than its answer.
func (a *Agent) listTableWire(f filter) []byte {
	objs := a.reg.all()
	b, _ := tablePool.Get().(*tableBuilder)
	if b == nil {
		b = newTableBuilder(len(objs))
	} else {
		b.reset()
	}
	defer tablePool.Put(b)
	for _, o := range objs {
		if f.matchObject(o) {
			b.add(o)
		}
	}
	b.encodeTimes()
	t := b.t
	// The joined strings alias the builder's buffers, which nothing
	// modifies until the table is encoded and the builder reset.
	t.Addresses, t.Tokens, t.Parents = aliasString(b.addrs), aliasString(b.tokens), aliasString(b.parents)
	n := proto.Size(t)
	out := make([]byte, 0, n+protowire.SizeVarint(uint64(n))+2)
	out = protowire.AppendTag(out, listTableField, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(n))
	out, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(out, t)
	if err != nil {
		panic(err) // a message of our own making always marshals
	}
	t.Addresses, t.Tokens, t.Parents = "", "", ""
	return out
}

func aliasString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
