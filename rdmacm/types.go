package rdmacm

import (
	"fmt"
	"strings"
)

// PortSpace is an RDMA CM port space (enum rdma_port_space).
type PortSpace int

// The port spaces rdmaform supports.
const (
	PSIPoIB PortSpace = 0x0002
	PSTCP   PortSpace = 0x0106
	PSUDP   PortSpace = 0x0111
	PSIB    PortSpace = 0x013F
)

func (p PortSpace) String() string {
	switch p {
	case PSIPoIB:
		return "ipoib"
	case PSTCP:
		return "tcp"
	case PSUDP:
		return "udp"
	case PSIB:
		return "ib"
	}
	return fmt.Sprintf("PortSpace(%#x)", int(p))
}

// ParsePortSpace reads the configuration spelling: tcp, udp, ib or ipoib.
func ParsePortSpace(s string) (PortSpace, error) {
	for _, p := range []PortSpace{PSTCP, PSUDP, PSIB, PSIPoIB} {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown port space %q: use tcp, udp, ib or ipoib", s)
}

// QPType is a queue pair type (enum ibv_qp_type).
type QPType int

// The QP types rdmaform supports.
const (
	RC QPType = 2
	UC QPType = 3
	UD QPType = 4
)

func (q QPType) String() string {
	switch q {
	case RC:
		return "rc"
	case UC:
		return "uc"
	case UD:
		return "ud"
	}
	return fmt.Sprintf("QPType(%d)", int(q))
}

// ParseQPType reads the configuration spelling: rc, uc or ud.
func ParseQPType(s string) (QPType, error) {
	for _, q := range []QPType{RC, UC, UD} {
		if strings.EqualFold(s, q.String()) {
			return q, nil
		}
	}
	return 0, fmt.Errorf("unknown QP type %q: use rc, uc or ud", s)
}

// DefaultQPType is the QP type that fits a port space, as librdmacm's
// rdma_create_id gives it: UD for UDP and IPoIB, RC otherwise.
func DefaultQPType(ps PortSpace) QPType {
	if ps == PSUDP || ps == PSIPoIB {
		return UD
	}
	return RC
}

// Datagram reports whether an id of port space ps and QP type qp
// exchanges SIDR messages rather than a connection's: the kernel gives
// UDP and IPoIB ids a UD type whatever QP they get, and IB ids the QP's.
func Datagram(ps PortSpace, qp QPType) bool {
	return ps == PSUDP || ps == PSIPoIB || (ps == PSIB && qp == UD)
}

// Family is an address family for rdma_getaddrinfo's hints.
type Family int

// Address families (Linux values).
const (
	FamilyUnspec Family = 0
	FamilyIPv4   Family = 2
	FamilyIPv6   Family = 10
	FamilyIB     Family = 27
)

// Flags are rdma_getaddrinfo's RAI_* hint flags.
type Flags int

// The RAI_* flags.
const (
	Passive     Flags = 0x1 // RAI_PASSIVE: the address is a local one to listen on
	NumericHost Flags = 0x2 // RAI_NUMERICHOST: the node is a numeric address, no name lookup
	NoRoute     Flags = 0x4 // RAI_NOROUTE: resolve the address only, not the route
	FamilyFlag  Flags = 0x8 // RAI_FAMILY: Family selects the family of the result
)

// Hints are rdma_getaddrinfo's hints.
type Hints struct {
	Flags     Flags
	Family    Family
	QPType    QPType
	PortSpace PortSpace
	// Source is the local address an active endpoint binds to (an IP
	// address or host name; "" lets the route choose), rdma_getaddrinfo's
	// ai_src_addr hint.
	Source string
}

// QPInit is the part of ibv_qp_init_attr rdmaform sets: the type comes from
// the address info (librdmacm takes it from there), the caps from here.
type QPInit struct {
	MaxSendWR     uint32
	MaxRecvWR     uint32
	MaxSendSGE    uint32
	MaxRecvSGE    uint32
	MaxInlineData uint32
	SQSigAll      bool
}

// Validate refuses caps that are zero where a QP needs at least one, or that
// exceed the device limits when limits are given.
func (q QPInit) Validate(limits *Limits) error {
	var problems []string
	check := func(name string, v uint32, min uint32, max int) {
		if v < min {
			problems = append(problems, fmt.Sprintf("%s must be at least %d", name, min))
		} else if max > 0 && int64(v) > int64(max) {
			problems = append(problems, fmt.Sprintf("%s = %d exceeds the device limit of %d", name, v, max))
		}
	}
	var maxWR, maxSGE int
	if limits != nil {
		maxWR, maxSGE = limits.MaxQPWR, limits.MaxSGE
	}
	check("max_send_wr", q.MaxSendWR, 1, maxWR)
	check("max_recv_wr", q.MaxRecvWR, 1, maxWR)
	check("max_send_sge", q.MaxSendSGE, 1, maxSGE)
	check("max_recv_sge", q.MaxRecvSGE, 1, maxSGE)
	if len(problems) > 0 {
		return fmt.Errorf("invalid QP capabilities: %s", strings.Join(problems, "; "))
	}
	return nil
}

// DefaultQPInit is a small QP suitable for probes and examples.
func DefaultQPInit() QPInit {
	return QPInit{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 64}
}

// ConnParam is rdma_conn_param as used by rdma_connect and rdma_accept.
type ConnParam struct {
	PrivateData        []byte
	ResponderResources uint8
	InitiatorDepth     uint8
	RetryCount         uint8 // 0-7; ignored when accepting
	RNRRetryCount      uint8 // 0-7, 7 meaning infinite
}

// Direction is which message carries private data.
type Direction int

// The messages that carry private data.
const (
	Connect Direction = iota
	Accept
	Reject
)

func (d Direction) String() string {
	return [...]string{"connect", "accept", "reject"}[d]
}

// cmaHeaderSize is the header the RDMA CM puts in front of a connect
// request's private data for IP-based ids (struct cma_hdr in the kernel).
const cmaHeaderSize = 36

// MaxPrivateData is the most private data librdmacm carries for an id of
// port space ps and QP type qp in direction d: the IB CM message's private
// data field (REQ 92, REP 196, REJ 148; SIDR REQ 216, SIDR REP 136, for
// datagram ids) less the RDMA CM header on connect requests of
// IP-addressed ids.
func MaxPrivateData(ps PortSpace, qp QPType, d Direction) int {
	if Datagram(ps, qp) {
		switch d {
		case Connect:
			return 216 - cmaHeaderSize
		default:
			return 136
		}
	}
	switch d {
	case Connect:
		return 92 - cmaHeaderSize
	case Accept:
		return 196
	default:
		return 148
	}
}

func (p ConnParam) validate(ps PortSpace, qp QPType, d Direction) error {
	if max := MaxPrivateData(ps, qp, d); len(p.PrivateData) > max {
		return fmt.Errorf("private data of %d bytes exceeds the %d bytes an RDMA CM %s carries in port space %s",
			len(p.PrivateData), max, d, ps)
	}
	if p.RetryCount > 7 {
		return fmt.Errorf("retry_count = %d: it must be between 0 and 7", p.RetryCount)
	}
	if p.RNRRetryCount > 7 {
		return fmt.Errorf("rnr_retry_count = %d: it must be between 0 and 7 (7 retries forever)", p.RNRRetryCount)
	}
	return nil
}
