package agent

import (
	"context"
	"os"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm/rdmanl"
)

// CheckKernel compares with the kernel now (see Agent.CheckKernel).
func (s *service) CheckKernel(context.Context, *pb.CheckKernelRequest) (*pb.KernelView, error) {
	return s.agent.CheckKernel(), nil
}

// KernelListeners lists the listening cm_ids of other processes (see
// kernelListeners).
func (s *service) KernelListeners(context.Context, *pb.KernelListenersRequest) (*pb.KernelListenersResponse, error) {
	ls, err := kernelListeners()
	if err != nil {
		return &pb.KernelListenersResponse{Unavailable: "reading the kernel's RDMA resources: " + err.Error()}, nil
	}
	return &pb.KernelListenersResponse{Listeners: ls}, nil
}

// kernelListeners lists the listening cm_ids that processes other than
// this one (and the kernel's own users, such as NFS over RDMA) hold on
// this host, one per process, address and port space: a wildcard listener
// is listed once, not once per device.
func kernelListeners() ([]*pb.KernelResource, error) {
	c, err := rdmanl.Dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ids, err := c.CMIDs()
	if err != nil {
		return nil, err
	}
	own := ownerOf(uint32(os.Getpid()))
	type key struct {
		pid  uint32
		kern string
		src  string
		ps   rdmanl.PortSpace
	}
	seen := map[key]bool{}
	var out []*pb.KernelResource
	for _, id := range ids {
		if id.State != rdmanl.CMListen || !id.Src.IsValid() || own(id.Owner) {
			continue
		}
		r := cmIDResource(id)
		k := key{r.Pid, id.KernName, r.LocalAddr, id.PortSpace}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	sortResources(out)
	return out, nil
}
