package tui

import "time"

// Kinds of object the agent holds, as they appear in Object.Kind.
const (
	KindProtectionDomain = "protection_domain"
	KindListener         = "listener"
	KindEndpoint         = "endpoint"
	KindConnection       = "connection" // a connection a listener accepted
)

// Object is the monitor's view of one object the agent holds. Every Update
// carries a whole Object, never a delta, so that the monitor can keep only
// the latest state of each object between two frames and lose nothing it
// would have shown.
type Object struct {
	// The fields come in the order a batch reads them of every object it
	// changes (the status, the totals, the peers, the sort, the cells'
	// widths), those only the detail or the rows on screen read last: a
	// batch that changes 10,000 objects reads each again in its passes,
	// a miss per line read.

	// Address names the object in configuration terms: "endpoint.client[3]".
	// Accepted connections have an address of their own under their
	// listener's, "listener.storage/conn/3", and Parent set.
	Address string
	// Parent is the listener's address for an accepted connection, else "".
	Parent string
	// Host names the host (its agent) that holds the object; "" for the
	// one agent the monitor watches today. Peers are matched within a
	// host's objects and across hosts alike (by their addresses).
	Host   string
	Kind   string // one of the Kind constants
	Status string // one of the Status constants, or any other word the agent uses

	LocalAddr  string // "10.77.0.1:7471"
	RemoteAddr string
	Probe      *ProbeStats // nil when the connection has no probe

	// lossy: probes were lost lately (the world sets it from the probe
	// history), which ranks the object as losing probes.
	lossy bool
	// hostDown: its host does not answer (a fabric's): the row is the
	// last picture.
	hostDown bool

	LastEvent   string // the librdmacm event name or the agent's word for it
	Reconnects  int
	LastEventAt time.Time
	// History is the object's recent events, oldest first. The agent bounds
	// it; the monitor shows the newest that fit.
	History []Event

	// hostRank is its host's place among the fabric's, for grouping.
	hostRank int
	// hist is the object's probe history (the world sets it), for the
	// table's sparkline.
	hist      *probeHistory
	LastError *ErrorInfo // the most recent failure, kept after recovery

	QPNum  uint32
	QPType string // "RC", "UD"
	Device string // "rxe0"
	Port   int    // the device's port number, from 1

	ConnectedSince time.Time // zero unless the current connection is up
	// ReceivedPrivateData is the private data the peer sent (a connection's
	// client with its request, an endpoint's listener with its accept),
	// already formatted by the agent's client: quoted text or "hex ...".
	ReceivedPrivateData string
	// Kernel is the kernel's word on the object, from its RDMA resource
	// tracking: "confirmed: ...", "mismatch: ...", "missing: ..."; "" when
	// not checked.
	Kernel string

	// Config is the object's configured attributes in the order the detail
	// pane shows them: protection domain, QP type and caps, connection
	// parameters.
	Config []Setting
}

// Setting is one configured attribute, already formatted by the agent.
type Setting struct {
	Key, Value string
}

// ErrorInfo is a failed librdmacm or verbs call.
type ErrorInfo struct {
	Call  string // "rdma_connect"
	Errno int    // 0 when the call does not set errno
	// ErrnoName is the agent's name for Errno ("ECONNREFUSED"); "" when it
	// has none.
	ErrnoName string
	Message   string // the agent's explanation; may be empty
	At        time.Time
}

// ProbeStats summarise a connection's round-trip probes.
type ProbeStats struct {
	Last, Min, Mean, Max time.Duration
	Sent, Lost           uint64
	// Degraded is the agent's verdict (too slow or too lossy); the monitor
	// shows such connections as degraded.
	Degraded bool
	// Ended: the probes were of a connection that ended (the endpoint
	// reconnects, or is disconnected for good): no round trip is current.
	Ended bool
}

// Event is one entry of an object's history.
type Event struct {
	At     time.Time
	Name   string // "ESTABLISHED", "DISCONNECTED", "reconnecting"
	Detail string // may be empty
}

// Declared is an object the configuration or the state declares, which
// the monitor shows even when the agent does not hold it: a create that
// failed, an object the agent lost. The command that starts the monitor
// reads them (Options.Declared).
type Declared struct {
	Address string
	Kind    string // one of the Kind constants
	Host    string // as Object.Host
	// InState: the state records it (apply created it); otherwise only
	// the configuration declares it (its create failed, or no apply ran).
	InState bool
	// InConfig: the configuration declares it; otherwise only the state
	// holds it (the next plan destroys it).
	InConfig bool
	// Pending: apply asked the agent for it and did not record the
	// outcome (the state's pending create).
	Pending   bool
	Tainted   bool       // the next plan replaces it
	LastError *ErrorInfo // the last failure known for it, if any
}

// Update is one change to one object: its new state, or its removal.
type Update struct {
	Object  Object
	Deleted bool // the object is gone; only Object.Address is meaningful
}

// AgentInfo describes the agent the monitor is connected to.
type AgentInfo struct {
	Socket    string
	PID       int
	StartedAt time.Time
	Devices   []DeviceInfo
}

// DeviceInfo is one RDMA device the agent sees.
type DeviceInfo struct {
	Name  string // "rxe0", "mlx5_0"
	Ports []PortInfo
}

// PortInfo is one port of a device.
type PortInfo struct {
	Num   int
	State string // "ACTIVE", "DOWN", as ibv_port_state names them without the prefix
}
