package binds

import "testing"

// As rdma_cm decides, with net.ipv6.bindv6only unset (checked in the
// Soft-RoCE VM): the same address, or a wildcard of either family.
func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"10.77.0.1", "10.77.0.1", true},
		{"fd77::1", "FD77:0::1", true},
		{"0.0.0.0", "10.77.0.1", true},
		{"10.77.0.1", "::", true},
		{"0.0.0.0", "fd77::1", true},
		{"0.0.0.0", "::", true},
		{"::", "rdma-host.example", true},
		{"10.77.0.1", "10.77.0.2", false},
		{"10.77.0.1", "fd77::1", false},
		{"rdma-host.example", "RDMA-host.example.", true},
		{"rdma-host.example", "10.77.0.1", false},
	} {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Overlap(c.b, c.a); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
