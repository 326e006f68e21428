package agent

import (
	"context"
	"net"
	"net/netip"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// deviceForTimeout bounds a DeviceFor answer: resolving a foreign address
// may wait for its neighbour, which must not hold a plan.
const deviceForTimeout = 5 * time.Second

// DeviceFor answers, for this host, what plan's device checks ask about an
// address: which RDMA device serves it (librdmacm picks it, as for the
// objects themselves) and whether it is one of this host's addresses. A
// CLI on another host cannot tell either from its own interfaces.
func (s *service) DeviceFor(ctx context.Context, r *pb.DeviceForRequest) (*pb.DeviceForResponse, error) {
	if r.Address == "" {
		return nil, status.Error(codes.InvalidArgument, "DeviceFor needs an address")
	}
	ctx, cancel := context.WithTimeout(ctx, deviceForTimeout)
	defer cancel()
	out := &pb.DeviceForResponse{Local: isLocal(ctx, r.Address)}
	dev, err := rdmacm.DeviceFor(ctx, r.Address)
	switch {
	case err != nil:
		out.NoDevice = err.Error()
	case dev == "":
		out.NoDevice = "no RDMA device serves " + r.Address
	default:
		out.Device = dev
	}
	return out, nil
}

// isLocal tells whether address (an IP or a name) is assigned to one of
// this host's interfaces; when they cannot be read, it says yes and leaves
// the question to rdma_bind_addr.
func isLocal(ctx context.Context, address string) bool {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(address); err == nil {
		ips = []netip.Addr{ip}
	} else if found, err := net.DefaultResolver.LookupNetIP(ctx, "ip", address); err == nil {
		ips = found
	}
	have, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, a := range have {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		x, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		for _, ip := range ips {
			if x.Unmap() == ip.WithZone("").Unmap() {
				return true
			}
		}
	}
	return false
}
