package agent

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// watchQueueLimit is how many changes a watcher's queue holds before it
// coalesces per object.
const watchQueueLimit = 4096

// service serves the Agent API over an Agent.
type service struct {
	pb.UnimplementedAgentServer
	agent    *Agent
	info     *pb.InfoResponse
	level    *slog.LevelVar // the logs' level; nil in tests that serve no logs
	shutdown func()         // asks Run to stop
}

var _ pb.AgentServer = (*service)(nil)

// grpcError maps the agent's errors to status codes.
func grpcError(err error) error {
	if err == nil {
		return nil
	}
	var nf *notFound
	var iu *inUse
	var ex *errExists
	var full *errFull
	switch {
	case errors.As(err, &full):
		return status.Error(codes.ResourceExhausted, err.Error())
	case errors.As(err, &nf):
		return status.Error(codes.NotFound, err.Error())
	case errors.As(err, &iu):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.As(err, &ex):
		return status.Error(codes.AlreadyExists, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	case errors.Is(err, errStopping):
		return status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, rdmacm.ErrNotBuilt):
		return status.Error(codes.Unimplemented, err.Error())
	}
	var op *rdmacm.OpError
	if errors.As(err, &op) {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	return status.Error(codes.InvalidArgument, err.Error())
}

func (s *service) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	out := s.agentInfo()
	if s.level == nil {
		return out, nil
	}
	if out == s.info {
		out = proto.CloneOf(s.info)
	}
	out.LogLevel = LevelName(s.level.Level())
	return out, nil
}

// agentInfo is the agent's description with its last comparison with the
// kernel, as List and Watch send it.
func (s *service) agentInfo() *pb.InfoResponse {
	k := s.agent.KernelView()
	if k == nil {
		return s.info
	}
	out := proto.CloneOf(s.info)
	out.Kernel = k
	return out
}

// SetLogLevel changes the logs' level while the agent runs: an operator
// turns on debug (every status change of every object) to watch a fault,
// then back.
func (s *service) SetLogLevel(_ context.Context, req *pb.SetLogLevelRequest) (*pb.SetLogLevelResponse, error) {
	if s.level == nil {
		return nil, status.Error(codes.Unimplemented, "this agent serves no logs")
	}
	l, err := ParseLevel(req.Level)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	prev := s.level.Level()
	s.level.Set(l)
	// At the higher of the two levels, so that the line is in the log
	// whichever way the level went.
	s.agent.log.Log(context.Background(), max(prev, l), "log level changed", "from", LevelName(prev), "to", LevelName(l))
	return &pb.SetLogLevelResponse{Previous: LevelName(prev)}, nil
}

func (s *service) Devices(context.Context, *pb.DevicesRequest) (*pb.DevicesResponse, error) {
	devs, err := rdmacm.Devices()
	if errors.Is(err, errNoDevice) {
		// No device at all (none on this host, or the last one being
		// removed) is an answer, not a failure: the plan then says, per
		// object, that no RDMA device serves its address.
		devs, err = nil, nil
	}
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	out := &pb.DevicesResponse{}
	for _, d := range devs {
		pd := &pb.Device{
			Name: d.Name, Guid: d.GUID, NodeType: d.NodeType, Transport: d.Transport,
			Limits: &pb.Limits{
				MaxQp: int32(d.Limits.MaxQP), MaxQpWr: int32(d.Limits.MaxQPWR), MaxSge: int32(d.Limits.MaxSGE),
				MaxCqe: int32(d.Limits.MaxCQE), MaxMr: int32(d.Limits.MaxMR), MaxPd: int32(d.Limits.MaxPD),
				MaxQpRdAtom: int32(d.Limits.MaxQPRdAtom), MaxQpInitRdAtom: int32(d.Limits.MaxQPInitRdAtom),
				PhysicalPorts: int32(d.Limits.PhysicalPortsNum),
				MaxSrq:        int32(d.Limits.MaxSRQ), MaxSrqWr: int32(d.Limits.MaxSRQWR), MaxSrqSge: int32(d.Limits.MaxSRQSGE),
			},
		}
		for _, p := range d.Ports {
			pd.Ports = append(pd.Ports, &pb.Port{Num: int32(p.Num), State: p.State, ActiveMtu: int32(p.ActiveMTU), LinkLayer: p.LinkLayer})
		}
		out.Devices = append(out.Devices, pd)
	}
	return out, nil
}

func (s *service) CreateProtectionDomain(_ context.Context, r *pb.CreateProtectionDomainRequest) (*pb.Object, error) {
	o, err := s.agent.CreateProtectionDomain(r.Address, r.Token, r.Spec)
	return o, grpcError(err)
}

func (s *service) CreateListener(ctx context.Context, r *pb.CreateListenerRequest) (*pb.Object, error) {
	o, err := s.agent.CreateListener(ctx, r.Address, r.Token, r.Spec)
	return o, grpcError(err)
}

func (s *service) CreateEndpoint(_ context.Context, r *pb.CreateEndpointRequest) (*pb.Object, error) {
	o, err := s.agent.CreateEndpoint(r.Address, r.Token, r.Spec)
	return o, grpcError(err)
}

func (s *service) CreateEndpoints(_ context.Context, r *pb.CreateEndpointsRequest) (*pb.CreateEndpointsResponse, error) {
	out := &pb.CreateEndpointsResponse{Results: make([]*pb.CreateResult, len(r.Endpoints))}
	for i, e := range r.Endpoints {
		res := &pb.CreateResult{}
		if o, err := s.agent.createEndpoint(e.Address, e.Token, e.Spec); err != nil {
			st := status.Convert(grpcError(err))
			res.Code, res.Error = int32(st.Code()), st.Message()
		} else {
			res.Object = o.summary()
		}
		out.Results[i] = res
	}
	return out, nil
}

func (s *service) Update(_ context.Context, r *pb.UpdateRequest) (*pb.Object, error) {
	o, err := s.agent.Update(r)
	return o, grpcError(err)
}

func (s *service) Delete(ctx context.Context, r *pb.DeleteRequest) (*pb.DeleteResponse, error) {
	existed, err := s.agent.Delete(ctx, r.Address)
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.DeleteResponse{Existed: existed}, nil
}

func (s *service) DeleteMany(_ context.Context, r *pb.DeleteManyRequest) (*pb.DeleteManyResponse, error) {
	res := s.agent.DeleteMany(r.Addresses)
	out := &pb.DeleteManyResponse{Results: make([]*pb.DeleteResult, len(res))}
	for i, d := range res {
		pr := &pb.DeleteResult{Address: r.Addresses[i], Existed: d.Existed}
		if d.Err != nil {
			st := status.Convert(grpcError(d.Err))
			pr.Code, pr.Error = int32(st.Code()), st.Message()
		}
		out.Results[i] = pr
	}
	return out, nil
}

// List answers a summary list with the objects' summaries already
// encoded (see listSummaryWire), carried as the response's unknown fields:
// they are written out as they are, and since they are the elements of
// field 1, the client decodes them as ListResponse.objects, as if they had
// been marshalled here.
func (s *service) List(_ context.Context, r *pb.ListRequest) (*pb.ListResponse, error) {
	f := filterOf(r.Filter)
	if r.Full || r.WithHistory {
		return &pb.ListResponse{Objects: s.agent.List(r.Full, r.WithHistory, r.Filter), Agent: s.agentInfo()}, nil
	}
	out := &pb.ListResponse{Agent: s.agentInfo()}
	if r.Table {
		out.ProtoReflect().SetUnknown(s.agent.listTableWire(f))
		return out, nil
	}
	if raw := s.agent.listSummaryWire(f); len(raw) > 0 {
		out.ProtoReflect().SetUnknown(raw)
	}
	return out, nil
}

// Watch subscribes before it snapshots, then drops queued changes the
// snapshot already shows (by revision), so nothing falls between the two.
func (s *service) Watch(r *pb.WatchRequest, stream grpc.ServerStreamingServer[pb.WatchResponse]) error {
	f := filterOf(r.Filter)
	sub := s.agent.hub.subscribe(watchQueueLimit, f)
	defer s.agent.hub.unsubscribe(sub)
	objs := s.agent.List(true, r.WithHistory, r.Filter)
	seen := make(map[string]uint64, len(objs))
	for _, o := range objs {
		seen[o.Address] = o.Revision
	}
	if err := stream.Send(&pb.WatchResponse{Snapshot: true, Objects: objs, Agent: s.agentInfo()}); err != nil {
		return err
	}
	ctx := stream.Context()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.agent.ctx.Done():
			return status.Error(codes.Unavailable, "the agent stopped")
		case <-sub.ready:
		}
		var out []*pb.Change
		for _, c := range sub.take() {
			addr := c.Object.Address
			if rev, ok := seen[addr]; ok {
				if c.Object.Revision <= rev {
					continue
				}
				delete(seen, addr)
			}
			if !r.WithHistory && len(c.Object.History) > 0 {
				c = &pb.Change{Deleted: c.Deleted, Object: withoutHistory(c.Object)}
			}
			out = append(out, c)
		}
		if len(out) == 0 {
			continue
		}
		if err := stream.Send(&pb.WatchResponse{Changes: out}); err != nil {
			return err
		}
	}
}

func withoutHistory(o *pb.Object) *pb.Object {
	return &pb.Object{
		Address: o.Address, Parent: o.Parent, Kind: o.Kind, Status: o.Status, Revision: o.Revision,
		Token: o.Token, Spec: o.Spec, Facts: o.Facts, LastEvent: o.LastEvent, LastEventAt: o.LastEventAt,
		LastError: o.LastError, CreatedAt: o.CreatedAt, StatusSince: o.StatusSince,
		ConnectedSince: o.ConnectedSince, Reconnects: o.Reconnects, Probe: o.Probe,
		Connections: o.Connections, AcceptedTotal: o.AcceptedTotal, RejectedTotal: o.RejectedTotal,
		RejectReason: o.RejectReason, ReceivedPrivateData: o.ReceivedPrivateData, Srq: o.Srq,
	}
}

func (s *service) Shutdown(context.Context, *pb.ShutdownRequest) (*pb.ShutdownResponse, error) {
	s.shutdown()
	return &pb.ShutdownResponse{}, nil
}
