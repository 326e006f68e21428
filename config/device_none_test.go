package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// listedDevices is fakeDevices that also says whether it has any.
type listedDevices struct{ fakeDevices }

func (l listedDevices) AnyDevice() bool { return len(l.fakeDevices) > 0 }

// A host without any RDMA device is said once, with how to load Soft-RoCE,
// whatever the objects are: a wildcard listener (0.0.0.0 or ::), which has
// no device to look up, included.
func TestCheckDeviceOnAHostWithoutDevices(t *testing.T) {
	for _, c := range []struct{ src, who string }{
		{`listener "any" {
  address = "0.0.0.0"
  port    = 7471
}`, "listener.any needs an RDMA device, but "},
		{`listener "any6" {
  address = "::"
  port    = 7471
}`, "listener.any6 needs an RDMA device, but "},
		{`protection_domain "pd" {
  device = "rxe0"
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  count   = 3
  address = "10.77.0.1"
  port    = 7471
}`, "protection_domain.pd and 4 others need an RDMA device, but "},
	} {
		cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(c.src)}, VarInputs{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		diags = CheckDevice(cfg, listedDevices{fakeDevices{}})
		if len(diags) != 1 || diags[0].Summary != nodevice.Summary || !strings.HasPrefix(diags[0].Detail, c.who) || !strings.Contains(diags[0].Detail, nodevice.Help) {
			t.Errorf("%s:\n%v", c.src, diags)
		}
		// With a device, the wildcard listeners have nothing to check.
		rxe := listedDevices{fakeDevices{"rxe0": {Name: "rxe0"}}}
		if diags := CheckDevice(cfg, rxe); strings.Contains(c.src, "any") && len(diags) != 0 {
			t.Errorf("%s with rxe0: %v", c.src, diags)
		}
	}
}
