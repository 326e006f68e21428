package agentfabric

import (
	"context"
	"fmt"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
)

var _ apply.SpecReader = (*Fabric)(nil)

// ReadSpec reads the spec the agent holds h.Name with: the configuration's
// typed blocks, the reverse of spec.go's conversions.
func (f *Fabric) ReadSpec(ctx context.Context, h apply.Handle) (apply.Spec, error) {
	o, err := f.object(ctx, h.Name)
	if err != nil {
		return apply.Spec{}, err
	}
	switch {
	case o.GetProtectionDomain() != nil:
		return apply.Spec{ProtectionDomain: &config.ProtectionDomain{Device: o.GetProtectionDomain().Device}}, nil
	case o.GetListener() != nil:
		return apply.Spec{Listener: listenerOf(o.GetListener())}, nil
	case o.GetEndpoint() != nil:
		return apply.Spec{Endpoint: endpointOf(o.GetEndpoint())}, nil
	}
	return apply.Spec{}, fmt.Errorf("the agent's %s is a %s, which no configuration block declares", h.Name, kindWord(o.Kind))
}

func listenerOf(s *pb.ListenerSpec) *config.Listener {
	a := s.GetAccept()
	return &config.Listener{
		Address: s.Address, Port: int(s.Port), PortSpace: config.PortSpace(s.PortSpace), Backlog: int(s.Backlog),
		PD: s.ProtectionDomain, QP: qpOf(s.Qp), Options: optionsOf(s.Options), SRQ: srqOf(s.Srq),
		Accept: config.Accept{ResponderResources: rdAtomsOf(a.GetResponderResources(), a.GetAutoResponderResources()),
			InitiatorDepth: rdAtomsOf(a.GetInitiatorDepth(), a.GetAutoInitiatorDepth()),
			PrivateData:    a.GetPrivateData(), RejectPrivateData: a.GetRejectPrivateData(), MaxConnections: int(a.GetMaxConnections()), Echo: a.GetEcho()},
	}
}

func endpointOf(s *pb.EndpointSpec) *config.Endpoint {
	c := s.GetConnect()
	e := &config.Endpoint{
		Address: s.Address, Port: int(s.Port), SourceAddress: s.SourceAddress, PortSpace: config.PortSpace(s.PortSpace),
		PD: s.ProtectionDomain, QP: qpOf(s.Qp), Options: optionsOf(s.Options),
		Connect: config.Connect{ResponderResources: rdAtomsOf(c.GetResponderResources(), c.GetAutoResponderResources()),
			InitiatorDepth: rdAtomsOf(c.GetInitiatorDepth(), c.GetAutoInitiatorDepth()),
			RetryCount:     int(c.GetRetryCount()), RNRRetryCount: int(c.GetRnrRetryCount()), PrivateData: c.GetPrivateData(), Timeout: time.Duration(c.GetTimeout())},
		CreateTimeout: time.Duration(s.CreateTimeout),
	}
	if r := s.Reconnect; r != nil {
		e.Reconnect = &config.Reconnect{MinBackoff: time.Duration(r.MinBackoff), MaxBackoff: time.Duration(r.MaxBackoff)}
	}
	if p := s.Probe; p != nil {
		e.Probe = &config.Probe{Interval: time.Duration(p.Interval), Size: int(p.Size), Timeout: time.Duration(p.Timeout), Mode: p.Mode}
	}
	return e
}

func qpOf(q *pb.QP) *config.QP {
	if q == nil {
		return nil
	}
	return &config.QP{Type: config.QPType(q.Type), MaxSendWR: int(q.MaxSendWr), MaxRecvWR: int(q.MaxRecvWr),
		MaxSendSGE: int(q.MaxSendSge), MaxRecvSGE: int(q.MaxRecvSge), MaxInlineData: int(q.MaxInlineData), SQSigAll: q.SqSigAll}
}

func srqOf(s *pb.SRQ) *config.SRQ {
	if s == nil {
		return nil
	}
	return &config.SRQ{MaxRecvWR: int(s.MaxRecvWr), MaxRecvSGE: int(s.MaxRecvSge)}
}

// rdAtomsOf reads responder_resources or initiator_depth back:
// FromDevice when the configuration left it out.
func rdAtomsOf(n uint32, auto bool) int {
	if auto {
		return config.FromDevice
	}
	return int(n)
}

func optionsOf(o *pb.CMOptions) *config.Options {
	if o == nil {
		return nil
	}
	out := &config.Options{ReuseAddress: o.ReuseAddress, IPv6Only: o.Ipv6Only}
	if o.TypeOfService != nil {
		v := int(*o.TypeOfService)
		out.TypeOfService = &v
	}
	if o.AckTimeout != nil {
		v := int(*o.AckTimeout)
		out.AckTimeout = &v
	}
	return out
}
