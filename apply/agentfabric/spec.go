package agentfabric

import (
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
)

// The agent's specs carry what the configuration declares; these convert
// the configuration's typed blocks.

func qpSpec(q *config.QP) *pb.QP {
	if q == nil {
		return nil
	}
	return &pb.QP{Type: string(q.Type), MaxSendWr: uint32(q.MaxSendWR), MaxRecvWr: uint32(q.MaxRecvWR),
		MaxSendSge: uint32(q.MaxSendSGE), MaxRecvSge: uint32(q.MaxRecvSGE), MaxInlineData: uint32(q.MaxInlineData), SqSigAll: q.SQSigAll}
}

func listenerSpec(l *config.Listener) *pb.ListenerSpec {
	return &pb.ListenerSpec{
		Address: l.Address, Port: uint32(l.Port), PortSpace: string(l.PortSpace), Backlog: int32(l.Backlog),
		ProtectionDomain: l.PD, Qp: qpSpec(l.QP),
		Accept: &pb.Accept{ResponderResources: rdAtoms(l.Accept.ResponderResources), InitiatorDepth: rdAtoms(l.Accept.InitiatorDepth),
			AutoResponderResources: l.Accept.ResponderResources == config.FromDevice, AutoInitiatorDepth: l.Accept.InitiatorDepth == config.FromDevice,
			PrivateData: l.Accept.PrivateData, RejectPrivateData: l.Accept.RejectPrivateData, MaxConnections: uint32(l.Accept.MaxConnections), Echo: l.Accept.Echo},
		Options: optionsSpec(l.Options),
		Srq:     srqSpec(l.SRQ),
	}
}

func srqSpec(s *config.SRQ) *pb.SRQ {
	if s == nil {
		return nil
	}
	return &pb.SRQ{MaxRecvWr: uint32(s.MaxRecvWR), MaxRecvSge: uint32(s.MaxRecvSGE)}
}

func endpointSpec(e *config.Endpoint) *pb.EndpointSpec {
	return &pb.EndpointSpec{
		Address: e.Address, Port: uint32(e.Port), SourceAddress: e.SourceAddress, PortSpace: string(e.PortSpace),
		ProtectionDomain: e.PD, Qp: qpSpec(e.QP),
		Connect: &pb.Connect{ResponderResources: rdAtoms(e.Connect.ResponderResources), InitiatorDepth: rdAtoms(e.Connect.InitiatorDepth),
			AutoResponderResources: e.Connect.ResponderResources == config.FromDevice, AutoInitiatorDepth: e.Connect.InitiatorDepth == config.FromDevice,
			RetryCount: uint32(e.Connect.RetryCount), RnrRetryCount: uint32(e.Connect.RNRRetryCount),
			PrivateData: e.Connect.PrivateData, Timeout: int64(e.Connect.Timeout)},
		Reconnect:     reconnectSpec(e.Reconnect),
		Probe:         probeSpec(e.Probe),
		CreateTimeout: int64(e.CreateTimeout),
		Options:       optionsSpec(e.Options),
	}
}

// rdAtoms is responder_resources or initiator_depth for the spec: 0 when
// the configuration left it out (the spec's auto_ field says so).
func rdAtoms(n int) uint32 {
	if n == config.FromDevice {
		return 0
	}
	return uint32(n)
}

func optionsSpec(o *config.Options) *pb.CMOptions {
	if o == nil {
		return nil
	}
	u := func(p *int) *uint32 {
		if p == nil {
			return nil
		}
		v := uint32(*p)
		return &v
	}
	return &pb.CMOptions{TypeOfService: u(o.TypeOfService), AckTimeout: u(o.AckTimeout), ReuseAddress: o.ReuseAddress, Ipv6Only: o.IPv6Only}
}

func reconnectSpec(r *config.Reconnect) *pb.Reconnect {
	if r == nil {
		return nil
	}
	return &pb.Reconnect{MinBackoff: int64(r.MinBackoff), MaxBackoff: int64(r.MaxBackoff)}
}

func probeSpec(p *config.Probe) *pb.Probe {
	if p == nil {
		return nil
	}
	return &pb.Probe{Interval: int64(p.Interval), Size: uint32(p.Size), Timeout: int64(p.Timeout), Mode: p.Mode}
}
