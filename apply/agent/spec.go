package agent

import (
	"fmt"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// Defaults for what a spec leaves out.
const (
	defaultBacklog = 1024
	// defaultResolveTimeout bounds address and route resolution, each, as
	// rping's 2000 ms (connect.timeout changes it).
	defaultResolveTimeout = 2 * time.Second
	// establishTimeout bounds the wait for ESTABLISHED after rdma_connect.
	// The CM retries an unanswered request for longer; a burst of a
	// thousand connects to one listener under Soft-RoCE takes seconds to
	// be answered, so this is generous.
	establishTimeout = 30 * time.Second
)

func portSpace(s string) (rdmacm.PortSpace, error) {
	if s == "" {
		return rdmacm.PSTCP, nil
	}
	return rdmacm.ParsePortSpace(s)
}

// qpOf reads a qp block: its type (the port space's default when absent)
// and capabilities (rdmacm's defaults when absent).
func qpOf(q *pb.QP, ps rdmacm.PortSpace) (rdmacm.QPType, rdmacm.QPInit, error) {
	t := rdmacm.DefaultQPType(ps)
	init := rdmacm.DefaultQPInit()
	if q == nil {
		return t, init, nil
	}
	if q.Type != "" {
		var err error
		if t, err = rdmacm.ParseQPType(q.Type); err != nil {
			return 0, init, err
		}
	}
	init = rdmacm.QPInit{
		MaxSendWR: q.MaxSendWr, MaxRecvWR: q.MaxRecvWr, MaxSendSGE: q.MaxSendSge,
		MaxRecvSGE: q.MaxRecvSge, MaxInlineData: q.MaxInlineData, SQSigAll: q.SqSigAll,
	}
	if err := init.Validate(nil); err != nil {
		return 0, init, err
	}
	return t, init, nil
}

func checkPort(port uint32, what string) error {
	if port == 0 || port > 65535 {
		return fmt.Errorf("%s port %d is outside 1-65535", what, port)
	}
	return nil
}

func byte8(v uint32, name string) (uint8, error) {
	if v > 255 {
		return 0, fmt.Errorf("%s = %d: it must be at most 255", name, v)
	}
	return uint8(v), nil
}

// listenerConfig is a listener spec, checked and converted.
type listenerConfig struct {
	portSpace rdmacm.PortSpace
	qpType    rdmacm.QPType
	qp        rdmacm.QPInit
	backlog   int
	accept    rdmacm.ConnParam
	echo      bool
	// rejectData is sent when a request is over max_connections (nil: a
	// reason naming the limit).
	rejectData []byte
	opts       rdmacm.Options
	// autoResp, autoInit: responder_resources and initiator_depth were left
	// out; each accept takes the least of the request's and the device's.
	autoResp, autoInit bool
	srq                *rdmacm.SRQInit // nil: each connection has its own receive queue
}

func checkListener(s *pb.ListenerSpec) (listenerConfig, error) {
	var c listenerConfig
	if s == nil || s.Address == "" {
		return c, fmt.Errorf("a listener needs an address to listen on")
	}
	if err := checkPort(s.Port, "listener"); err != nil {
		return c, err
	}
	var err error
	if c.portSpace, err = portSpace(s.PortSpace); err != nil {
		return c, err
	}
	if c.qpType, c.qp, err = qpOf(s.Qp, c.portSpace); err != nil {
		return c, err
	}
	c.backlog = int(s.Backlog)
	if c.backlog <= 0 {
		c.backlog = defaultBacklog
	}
	if a := s.Accept; a != nil {
		if c.accept.ResponderResources, err = byte8(a.ResponderResources, "accept.responder_resources"); err != nil {
			return c, err
		}
		if c.accept.InitiatorDepth, err = byte8(a.InitiatorDepth, "accept.initiator_depth"); err != nil {
			return c, err
		}
		c.accept.PrivateData = a.PrivateData
		if max := rdmacm.MaxPrivateData(c.portSpace, c.qpType, rdmacm.Accept); len(a.PrivateData) > max {
			return c, fmt.Errorf("accept.private_data has %d bytes: an accept carries at most %d in port space %s", len(a.PrivateData), max, c.portSpace)
		}
		c.rejectData = a.RejectPrivateData
		if max := rdmacm.MaxPrivateData(c.portSpace, c.qpType, rdmacm.Reject); len(a.RejectPrivateData) > max {
			return c, fmt.Errorf("accept.reject_private_data has %d bytes: a reject carries at most %d in port space %s", len(a.RejectPrivateData), max, c.portSpace)
		}
		c.echo = a.Echo
		if c.echo && !probes(c.qpType) {
			return c, fmt.Errorf("accept.echo needs an RC or UD QP (the listener's is %s)", c.qpType)
		}
		c.autoResp, c.autoInit = a.AutoResponderResources, a.AutoInitiatorDepth
	}
	c.accept.RNRRetryCount = 7
	if c.opts, err = optionsOf(s.Options, c.qpType); err != nil {
		return c, err
	}
	if c.srq, err = srqOf(s, c.qpType); err != nil {
		return c, err
	}
	return c, nil
}

// endpointConfig is an endpoint spec, checked and converted.
type endpointConfig struct {
	portSpace rdmacm.PortSpace
	qpType    rdmacm.QPType
	qp        rdmacm.QPInit
	connect   rdmacm.ConnParam
	// resolveTimeout is connect.timeout: address and route resolution.
	resolveTimeout time.Duration
	// createTimeout bounds the first connect's wait for ESTABLISHED
	// (timeouts.create); reconnects wait establishTimeout.
	createTimeout time.Duration
	opts          rdmacm.Options
	// autoResp, autoInit: responder_resources and initiator_depth were left
	// out; each connect takes the device's limits.
	autoResp, autoInit bool
}

func checkEndpoint(s *pb.EndpointSpec) (endpointConfig, error) {
	var c endpointConfig
	if s == nil || s.Address == "" {
		return c, fmt.Errorf("an endpoint needs the address of its listener")
	}
	if err := checkPort(s.Port, "endpoint"); err != nil {
		return c, err
	}
	var err error
	if c.portSpace, err = portSpace(s.PortSpace); err != nil {
		return c, err
	}
	if c.qpType, c.qp, err = qpOf(s.Qp, c.portSpace); err != nil {
		return c, err
	}
	c.connect = rdmacm.ConnParam{RetryCount: 7, RNRRetryCount: 7}
	c.resolveTimeout = defaultResolveTimeout
	c.createTimeout = establishTimeout
	if s.CreateTimeout < 0 {
		return c, fmt.Errorf("create_timeout %v is negative", time.Duration(s.CreateTimeout))
	}
	if s.CreateTimeout > 0 {
		c.createTimeout = time.Duration(s.CreateTimeout)
	}
	if k := s.Connect; k != nil {
		if c.connect.ResponderResources, err = byte8(k.ResponderResources, "connect.responder_resources"); err != nil {
			return c, err
		}
		if c.connect.InitiatorDepth, err = byte8(k.InitiatorDepth, "connect.initiator_depth"); err != nil {
			return c, err
		}
		if k.RetryCount > 7 || k.RnrRetryCount > 7 {
			return c, fmt.Errorf("connect.retry_count and rnr_retry_count must be 0-7 (got %d and %d)", k.RetryCount, k.RnrRetryCount)
		}
		c.connect.RetryCount, c.connect.RNRRetryCount = uint8(k.RetryCount), uint8(k.RnrRetryCount)
		c.connect.PrivateData = k.PrivateData
		if max := rdmacm.MaxPrivateData(c.portSpace, c.qpType, rdmacm.Connect); len(k.PrivateData) > max {
			return c, fmt.Errorf("connect.private_data has %d bytes: a connect request carries at most %d in port space %s", len(k.PrivateData), max, c.portSpace)
		}
		if k.Timeout < 0 {
			return c, fmt.Errorf("connect.timeout is negative")
		}
		if k.Timeout > 0 {
			c.resolveTimeout = time.Duration(k.Timeout)
		}
		c.autoResp, c.autoInit = k.AutoResponderResources, k.AutoInitiatorDepth
	}
	if c.opts, err = optionsOf(s.Options, c.qpType); err != nil {
		return c, err
	}
	if _, err := backoffOf(s.Reconnect); err != nil {
		return c, err
	}
	pc, err := probeOf(s.Probe)
	if err != nil {
		return c, err
	}
	if s.Probe != nil && !probes(c.qpType) {
		return c, fmt.Errorf("probe needs an RC or UD QP (the endpoint's is %s)", c.qpType)
	}
	return c, c.probeNeeds(pc)
}

// backoffOf reads a reconnect block; nil means no reconnect.
func backoffOf(r *pb.Reconnect) (*backoff, error) {
	if r == nil {
		return nil, nil
	}
	b := &backoff{Min: time.Duration(r.MinBackoff), Max: time.Duration(r.MaxBackoff)}
	if b.Min <= 0 {
		return nil, fmt.Errorf("reconnect.min_backoff must be positive")
	}
	if b.Max < b.Min {
		return nil, fmt.Errorf("reconnect.max_backoff (%v) is less than min_backoff (%v)", b.Max, b.Min)
	}
	return b, nil
}

// probeConfig is a probe block, checked.
type probeConfig struct {
	interval, timeout time.Duration
	size              int
	mode              string // probeSend, probeWrite, probeRead or probeRping
}

// Probe modes, as the configuration names them (config.ProbeModes).
const (
	probeSend  = "send"
	probeWrite = "write"
	probeRead  = "read"
	probeRping = "rping"
)

// probeOf reads a probe block; nil means no probes.
func probeOf(p *pb.Probe) (*probeConfig, error) {
	if p == nil {
		return nil, nil
	}
	c := &probeConfig{interval: time.Duration(p.Interval), timeout: time.Duration(p.Timeout), size: int(p.Size), mode: p.Mode}
	switch c.mode {
	case "":
		c.mode = probeSend
	case probeSend, probeWrite, probeRead, probeRping:
	default:
		return nil, fmt.Errorf("probe.mode %q is not send, write, read or rping", p.Mode)
	}
	if c.interval < time.Millisecond {
		return nil, fmt.Errorf("probe.interval %v is under 1ms", c.interval)
	}
	if c.size < 1 || c.size > MaxProbeSize {
		return nil, fmt.Errorf("probe.size %d is outside 1-%d bytes", c.size, MaxProbeSize)
	}
	if c.timeout <= 0 {
		c.timeout = c.interval
	}
	return c, nil
}
