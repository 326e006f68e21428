package rdmacm

import "fmt"

// EventType is an RDMA CM event (enum rdma_cm_event_type).
type EventType int

// The RDMA CM events.
const (
	AddrResolved EventType = iota
	AddrError
	RouteResolved
	RouteError
	ConnectRequest
	ConnectResponse
	ConnectError
	Unreachable
	Rejected
	Established
	Disconnected
	DeviceRemoval
	MulticastJoin
	MulticastError
	AddrChange
	TimewaitExit

	// channelFailed is queued to every id when its channel's event loop
	// fails, so waiters return that error instead of waiting forever.
	channelFailed EventType = -1
)

// Device events are not RDMA CM events: the binding reads them with
// ibv_get_async_event from the device, or notices them in its completion
// poller, and delivers them to the ids they concern, as it does the CM's.
// They report; what to do about them is the id's owner's choice (a fatal
// QP error ends the connection's data path, not its CM state).
const (
	PortError        EventType = -2 // IBV_EVENT_PORT_ERR: the id's port went down; Status is the port
	PortActive       EventType = -3 // IBV_EVENT_PORT_ACTIVE: the id's port is up again; Status is the port
	QPFatal          EventType = -4 // IBV_EVENT_QP_FATAL, QP_REQ_ERR or QP_ACCESS_ERR: the QP is in error; Err says which
	CQError          EventType = -5 // IBV_EVENT_CQ_ERR: the CQ of the id's QP failed (an overflow); Err says so
	DeviceFatal      EventType = -6 // IBV_EVENT_DEVICE_FATAL: the device failed
	CompletionFailed EventType = -7 // reading the completions of the id's QP failed; Err says how
)

var deviceEventNames = map[EventType]string{
	PortError: "PORT_ERR", PortActive: "PORT_ACTIVE", QPFatal: "QP_FATAL",
	CQError: "CQ_ERR", DeviceFatal: "DEVICE_FATAL", CompletionFailed: "COMPLETION_ERROR",
}

// DeviceEvent reports whether t is a device event rather than one of the
// RDMA CM: waits for a CM event pass over it.
func (t EventType) DeviceEvent() bool { return t <= PortError && t >= CompletionFailed }

var eventNames = [...]string{
	"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
	"CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE",
	"REJECTED", "ESTABLISHED", "DISCONNECTED", "DEVICE_REMOVAL",
	"MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT",
}

// String is the event's name as rdma_event_str spells it, without the
// RDMA_CM_EVENT_ prefix.
func (t EventType) String() string {
	if t >= 0 && int(t) < len(eventNames) {
		return eventNames[t]
	}
	if n, ok := deviceEventNames[t]; ok {
		return n
	}
	return fmt.Sprintf("EVENT_%d", int(t))
}

// Event is one RDMA CM event, copied out of librdmacm and acknowledged
// before it reaches Go code.
type Event struct {
	Type EventType
	// Status is the event's status: a negative errno for errors, the IB CM
	// reject reason for REJECTED.
	Status int
	// ID is the id the event concerns; for CONNECT_REQUEST, the new id of
	// the incoming connection (with its QP already created when the
	// listener has a QP configuration).
	ID *ID
	// Listener is the listening id, for CONNECT_REQUEST.
	Listener *ID
	// PrivateData is the peer's private data. IB CM messages have a fixed
	// size, so it may carry trailing zeros after what the peer sent.
	PrivateData []byte
	// Param is the connection parameters the peer asked for, for
	// CONNECT_REQUEST and CONNECT_RESPONSE.
	Param ConnParam
	// QPNum and QKey are the remote QP's, where the event carries them.
	QPNum uint32
	QKey  uint32
	// Err is set when the binding could not complete its part of the event,
	// such as creating the QP of an incoming request.
	Err error
}

func (e Event) String() string {
	s := e.Type.String()
	if e.Type == Rejected {
		s += fmt.Sprintf(" (reason %d: %s)", e.Status, RejectReason(e.Status))
	} else if e.Type == PortError || e.Type == PortActive {
		s += fmt.Sprintf(" (port %d)", e.Status)
	} else if e.Type == Unreachable && e.Status > 0 {
		s += fmt.Sprintf(" (SIDR status %d: %s)", e.Status, SIDRStatus(e.Status))
	} else if e.Status != 0 && !e.Type.DeviceEvent() {
		s += fmt.Sprintf(" (status %d)", e.Status)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// SIDRStatus explains the status of a UD id's SIDR reply, which an
// UNREACHABLE event carries when positive (IBTA Table 117; a negative
// status is an errno).
func SIDRStatus(code int) string {
	switch code {
	case 1:
		return "service ID not supported: no UD listener on that port"
	case 2:
		return "rejected by the remote consumer"
	case 3:
		return "no QP available"
	case 4:
		return "redirected"
	case 5:
		return "unsupported class version"
	}
	return "unknown status"
}

// RejectReason explains an IB CM reject reason, as carried in a REJECTED
// event's status (IBTA Table 112).
func RejectReason(code int) string {
	switch code {
	case 1:
		return "no QP available"
	case 2:
		return "no EEC available"
	case 3:
		return "no resources"
	case 4:
		return "timeout"
	case 5:
		return "unsupported request"
	case 6:
		return "invalid communication ID"
	case 7:
		return "invalid communication instance"
	case 8:
		return "invalid service ID: no listener on that port"
	case 9:
		return "invalid transport type"
	case 10:
		return "stale connection"
	case 11:
		return "RDC does not exist"
	case 12:
		return "invalid GID"
	case 13:
		return "invalid LID"
	case 14:
		return "invalid SL"
	case 15:
		return "invalid traffic class"
	case 16:
		return "invalid hop limit"
	case 17:
		return "invalid packet rate"
	case 18:
		return "invalid alternate GID"
	case 26:
		return "invalid MTU"
	case 27:
		return "insufficient responder resources"
	case 28:
		return "rejected by the remote consumer"
	case 29:
		return "invalid RNR retry count"
	case 30:
		return "port redirect"
	case 31:
		return "duplicate local communication ID"
	case 32:
		return "invalid class version"
	case 33:
		return "invalid flow label"
	case 34:
		return "invalid alternate flow label"
	}
	return "unknown reason"
}

// ConsumerReject is the IB CM reject reason of an rdma_reject by the peer.
const ConsumerReject = 28
