package agentpb

import "sort"

// SummaryRow is one row of a SummaryTable: an object's summary, as an
// Object summary would carry it. Its strings share the table's memory.
type SummaryRow struct {
	Address, Token, Parent string
	Kind                   Kind
	Status                 Status
	Revision               uint64
	LastEvent              string
	LastEventAt            int64
	// LastError is the row's last error (call, errno, errno_name; no
	// message), shared by the rows that failed alike: do not modify it.
	LastError      *ErrorInfo
	LastErrorAt    int64
	ConnectedSince int64
	Reconnects     uint32
	Connections    uint32
	Probe          *ProbeStats // nil when the object has no probe figures
}

// Len is the number of rows.
func (t *SummaryTable) Len() int { return len(t.GetAddressEnds()) }

// Row reads row i (0 <= i < Len()). A column a malformed table lacks reads
// as zero.
func (t *SummaryTable) Row(i int) SummaryRow {
	r := SummaryRow{
		Address:        joined(t.GetAddresses(), t.GetAddressEnds(), i),
		Token:          joined(t.GetTokens(), t.GetTokenEnds(), i),
		Parent:         joined(t.GetParents(), t.GetParentEnds(), i),
		Kind:           at(t.GetKinds(), i),
		Status:         at(t.GetStatuses(), i),
		Revision:       at(t.GetRevisions(), i),
		LastEventAt:    t.timeAt(t.GetLastEventBefore(), t.GetLastEventAt(), i),
		LastErrorAt:    t.timeAt(t.GetLastErrorBefore(), t.GetLastErrorAt(), i),
		ConnectedSince: t.timeAt(t.GetConnectedBefore(), t.GetConnectedSince(), i),
		Reconnects:     at(t.GetReconnects(), i),
		Connections:    at(t.GetConnections(), i),
	}
	if i < len(t.GetLastEvents()) {
		r.LastEvent = at(t.GetEventNames(), int(t.LastEvents[i]))
	}
	if e := at(t.GetLastErrors(), i); e > 0 {
		r.LastError = at(t.GetErrors(), int(e-1))
	}
	rows := t.GetProbeRows()
	if j := sort.Search(len(rows), func(j int) bool { return rows[j] >= uint32(i) }); j < len(rows) && rows[j] == uint32(i) {
		r.Probe = at(t.GetProbes(), j)
	}
	return r
}

// Object is the row as the Object a summary List returns (a copy: it
// allocates).
func (r SummaryRow) Object() *Object {
	o := &Object{
		Address: r.Address, Parent: r.Parent, Kind: r.Kind, Status: r.Status, Revision: r.Revision,
		Token: r.Token, LastEvent: r.LastEvent, LastEventAt: r.LastEventAt,
		ConnectedSince: r.ConnectedSince, Reconnects: r.Reconnects, Connections: r.Connections, Probe: r.Probe,
	}
	if e := r.LastError; e != nil {
		o.LastError = &ErrorInfo{Call: e.Call, Errno: e.Errno, ErrnoName: e.ErrnoName, At: r.LastErrorAt}
	}
	return o
}

// timeAt is row i's time (Unix nanoseconds, 0 for none) in a column sent
// relative to time_base (before), or else as Unix nanoseconds (unix).
func (t *SummaryTable) timeAt(before []uint64, unix []int64, i int) int64 {
	if len(before) == 0 {
		return at(unix, i)
	}
	d := at(before, i)
	if d == 0 {
		return 0
	}
	return t.GetTimeBase() - int64(d-1)
}

func at[T any](s []T, i int) T {
	if i < 0 || i >= len(s) {
		var zero T
		return zero
	}
	return s[i]
}

// joined is the i-th of the strings joined into s, ends[i] marking where
// each ends.
func joined(s string, ends []uint32, i int) string {
	if i >= len(ends) {
		return ""
	}
	var from uint32
	if i > 0 {
		from = ends[i-1]
	}
	to := ends[i]
	if from > to || int(to) > len(s) {
		return ""
	}
	return s[from:to]
}
