package config

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

type fakeDevices map[string]DeviceAttr

func (f fakeDevices) Device(name string) (DeviceAttr, error) {
	if d, ok := f[name]; ok {
		return d, nil
	}
	return DeviceAttr{}, errors.New("not found")
}

func (f fakeDevices) DeviceFor(address string) (DeviceAttr, error) {
	if address == "10.77.0.1" {
		return f["rxe0"], nil
	}
	return DeviceAttr{}, errors.New("no route")
}

func TestCheckDevice(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
protection_domain "pd" {
  device = "mlx5_0"
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_send_wr = 20000
    max_recv_sge = 2
  }
}
endpoint "e" {
  address = "10.77.0.1"
  source_address = "192.0.2.1"
  port    = 7471
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32}})
	want := []struct {
		summary, detail string
		line, col       int
	}{
		{"No such RDMA device", `protection_domain.pd: device "mlx5_0": not found.`, 3, 12},
		{"Exceeds the device's limit", "listener.l: max_send_wr = 20000 exceeds rxe0's max_qp_wr of 16384.", 9, 19},
		{"Address not reachable over RDMA", "endpoint.e: no RDMA device serves 192.0.2.1: no route.", 15, 20},
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, w := range want {
		d := diags[i]
		if d.Summary != w.summary || !strings.Contains(d.Detail, w.detail) || d.Subject.Start.Line != w.line || d.Subject.Start.Column != w.col {
			t.Errorf("diagnostic %d = %q %q at %s; want %q %q at %d,%d", i, d.Summary, d.Detail, d.Subject, w.summary, w.detail, w.line, w.col)
		}
	}
}

// A QP's sends and receives complete on one CQ: their sum must fit the
// device's max_cqe, though each fits max_qp_wr.
func TestCheckDeviceMaxCQE(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_send_wr = 40000
  }
}
endpoint "fits" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_send_wr = 16000
    max_recv_wr = 16000
  }
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32, MaxCQE: 32767}})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "listener.l: max_send_wr + max_recv_wr = 40064 completion entries, more than rxe0's max_cqe of 32767") || diags[0].Subject.Start.Line != 6 {
		t.Errorf("got %v", diags)
	}
}

// A listener on 0.0.0.0 or :: listens on every device: no route to check.
func TestCheckDeviceWildcardListener(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "any" {
  address = "0.0.0.0"
  port    = 7740
}
listener "any6" {
  address = "::"
  port    = 7741
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32}}); len(diags) != 0 {
		t.Errorf("wildcard listeners: %v", diags)
	}
}

// localFakeDevices is fakeDevices that also says which addresses are this
// host's.
type localFakeDevices struct {
	fakeDevices
	local map[string]bool
}

func (l localFakeDevices) IsLocal(ip netip.Addr) bool { return l.local[ip.String()] }

// A listener's address and an endpoint's source_address must be this
// host's, though a device routes to them.
func TestCheckDeviceLocalAddresses(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "ghost" {
  address = "10.77.0.1"
  port    = 7604
}
endpoint "e" {
  address        = "10.77.0.1"
  source_address = "10.77.0.1"
  port           = 7471
}
endpoint "remote" {
  address = "10.77.0.1"
  port    = 7604
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dl := localFakeDevices{fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32}}, map[string]bool{}}
	diags = CheckDevice(cfg, dl)
	if len(diags) != 2 || !strings.Contains(diags[0].Detail, "listener.ghost: 10.77.0.1 is not an address of this host") ||
		!strings.Contains(diags[1].Detail, "endpoint.e: 10.77.0.1 is not an address of this host") {
		t.Errorf("not local: %v", diags)
	}
	dl.local["10.77.0.1"] = true
	if diags = CheckDevice(cfg, dl); len(diags) != 0 {
		t.Errorf("local: %v", diags)
	}
}

// RDMA_PS_IPOIB needs an InfiniBand port: on RoCE rdma_create_ep fails
// with EINVAL, so the device check says so at the port_space.
func TestCheckDeviceIPoIBNeedsInfiniBand(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ipoib"
}
endpoint "tcp" {
  address = "10.77.0.1"
  port    = 7472
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32, LinkLayer: "Ethernet"}})
	if len(diags) != 1 || diags[0].Summary != "Port space needs InfiniBand" || diags[0].Subject.Start.Line != 5 ||
		!strings.Contains(diags[0].Detail, `listener.l: port_space = "ipoib" needs an InfiniBand port, but 10.77.0.1 is reached through rxe0, whose link layer is Ethernet`) {
		t.Errorf("ipoib on Ethernet: %v", diags)
	}
	if diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32, LinkLayer: "InfiniBand"}}); len(diags) != 0 {
		t.Errorf("ipoib on InfiniBand: %v", diags)
	}
}

// librdmacm refuses responder_resources and initiator_depth above the
// device's max_qp_rd_atom and max_qp_init_rd_atom (EINVAL from rdma_accept
// or rdma_connect), except 255, its "as many as the device allows".
func TestCheckDeviceRdAtoms(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  accept {
    responder_resources = 200
    initiator_depth     = 255
  }
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  connect {
    initiator_depth = 129
  }
}
endpoint "ok" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  connect {
    responder_resources = 128
    initiator_depth     = 255
  }
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	diags = CheckDevice(cfg, fakeDevices{"rxe0": {Name: "rxe0", MaxQPWR: 1 << 20, MaxSGE: 32, MaxQPRdAtom: 128, MaxQPInitRdAtom: 128}})
	want := []struct {
		detail string
		line   int
	}{
		{"listener.l: accept.responder_resources = 200 exceeds rxe0's max_qp_rd_atom of 128: rdma_accept would fail with EINVAL.", 7},
		{"endpoint.e: connect.initiator_depth = 129 exceeds rxe0's max_qp_init_rd_atom of 128: rdma_connect would fail with EINVAL.", 16},
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, w := range want {
		if d := diags[i]; !strings.Contains(d.Detail, w.detail) || d.Subject.Start.Line != w.line {
			t.Errorf("diagnostic %d = %q at %s; want %q at line %d", i, d.Detail, d.Subject, w.detail, w.line)
		}
	}
}

// routeCountingDevices counts the routes looked for: a foreign address's
// resolution waits for its neighbour and may time out.
type routeCountingDevices struct {
	localFakeDevices
	asked *[]string
}

func (r routeCountingDevices) DeviceFor(address string) (DeviceAttr, error) {
	*r.asked = append(*r.asked, address)
	return r.localFakeDevices.DeviceFor(address)
}

// A listener's address that is not the host's is said so before any
// route to it is looked for (rdma_resolve_addr to a foreign host's address
// timed out on the several-VM testbed, and the plan said that instead).
func TestCheckDeviceForeignListenerAddressLooksForNoRoute(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "elsewhere" {
  address = "10.77.1.2"
  port    = 7479
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var asked []string
	dl := routeCountingDevices{localFakeDevices{fakeDevices{"rxe0": {Name: "rxe0"}}, map[string]bool{}}, &asked}
	diags = CheckDevice(cfg, dl)
	if len(diags) != 1 || diags[0].Summary != "Address not on this host" {
		t.Errorf("diagnostics: %v", diags)
	}
	if len(asked) != 0 {
		t.Errorf("routes looked for: %v", asked)
	}
}
