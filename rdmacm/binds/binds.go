// Package binds holds rdma_cm's rule for which binds collide, in plain Go:
// the configuration's validation and the agent both judge by it, and
// neither needs the other (nor the binding) for it.
package binds

import (
	"net/netip"
	"strings"
)

// Overlap reports whether two listeners on the same port and port
// space, one on address a and the other on b, cannot both bind it: the
// same address, or either one every address (0.0.0.0 or ::), of either
// family. rdma_cm refuses the second bind: EADDRINUSE for the same
// address, EADDRNOTAVAIL where a wildcard is involved. An IPv6 wildcard
// covers IPv4 too, and an IPv4 wildcard collides with an IPv6 address,
// because rdma_cm binds IPv6 ids for both families unless
// net.ipv6.bindv6only is set (it is not by default).
//
// A host name is compared by name (it is not resolved), and with the
// wildcards.
func Overlap(a, b string) bool {
	ipA, errA := netip.ParseAddr(a)
	ipB, errB := netip.ParseAddr(b)
	if errA == nil && ipA.IsUnspecified() || errB == nil && ipB.IsUnspecified() {
		return true
	}
	if errA != nil || errB != nil {
		return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
	}
	return ipA == ipB // fd77:0::1 is fd77::1
}
