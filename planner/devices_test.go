package planner

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestDeviceChecks(t *testing.T) {
	devs := fakeDevices{
		devices: []Device{{Name: "rxe0", MaxQPWR: 16, MaxSGE: 4}, {Name: "rxe1", MaxQPWR: 1024, MaxSGE: 4}},
		routes:  map[string]string{"10.77.0.1": "rxe1"},
	}
	_, diags := Make(context.Background(), load(t, loopback), nil, Options{Devices: everyAgent(devs)})
	text := diagText(diags)
	for _, want := range []string{
		// The PD is on rxe0, the address is served by rxe1.
		"listener.loop uses protection_domain.rxe, which is on device rxe0, but its address 10.77.0.1 is served by device rxe1",
		"endpoint.client[0] uses protection_domain.rxe, which is on device rxe0",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "exceeds") {
		t.Errorf("rxe1's limits are wide enough:\n%s", text)
	}

	devs.routes["10.77.0.1"] = "rxe0"
	_, diags = Make(context.Background(), load(t, loopback), nil, Options{Devices: everyAgent(devs)})
	text = diagText(diags)
	if !strings.Contains(text, "endpoint.client[0]: max_send_wr = 32 exceeds rxe0's max_qp_wr of 16. The same applies to 1 other instance of this block.") {
		t.Errorf("no cap error in\n%s", text)
	}
	if strings.Contains(text, "endpoint.client[1]: max_send_wr") {
		t.Errorf("one error per instance of a block:\n%s", text)
	}
	if strings.Contains(text, "another device") {
		t.Errorf("same device reported as another:\n%s", text)
	}

	delete(devs.routes, "10.77.0.1")
	_, diags = Make(context.Background(), load(t, loopback), nil, Options{Devices: everyAgent(devs)})
	if text := diagText(diags); !strings.Contains(text, "no RDMA device serves 10.77.0.1") {
		t.Errorf("no reachability error in\n%s", text)
	}
}

func TestDeviceChecksSkipObjectsNotCreated(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	devs := fakeDevices{devices: []Device{{Name: "rxe0", MaxQPWR: 16, MaxSGE: 4}}, routes: map[string]string{"10.77.0.1": "rxe0"}}
	if _, diags := Make(context.Background(), cfg, st, Options{Devices: everyAgent(devs)}); len(diags) != 0 {
		t.Fatalf("existing objects re-checked: %s", diagText(diags))
	}
}

// noDevices is a host without RDMA: listing the devices fails.
type noDevices struct{}

func (noDevices) Devices(context.Context) ([]Device, error) {
	return nil, errors.New("rdma_get_devices: no such device (ENODEV)")
}
func (noDevices) DeviceFor(context.Context, string) (string, error) {
	return "", errors.New("rdma_get_devices: no such device (ENODEV)")
}

// A plan that creates nothing needs no device; one that creates asks, and
// says why it cannot check.
func TestDeviceChecksOnlyAskWhenCreating(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	if _, diags := Make(context.Background(), cfg, st, Options{Devices: everyAgent(noDevices{})}); len(diags) != 0 {
		t.Fatalf("a no-change plan asked for the devices: %s", diagText(diags))
	}
	st.RemoveObject(mustAddr(t, "endpoint.client[1]"))
	if _, diags := Make(context.Background(), cfg, st, Options{Devices: everyAgent(noDevices{})}); !strings.Contains(diagText(diags), "Failed to list the RDMA devices") {
		t.Fatalf("a plan creating an endpoint did not check the devices: %s", diagText(diags))
	}
}

// An agent on a host without devices (or whose only device is being
// removed) lists none: the plan says so once, naming the objects and how
// to load Soft-RoCE, rather than one error about listing devices or one
// per object.
func TestDeviceChecksWithoutAnyDevice(t *testing.T) {
	_, diags := Make(context.Background(), load(t, loopback), nil, Options{Devices: everyAgent(fakeDevices{})})
	text := diagText(diags)
	if len(diags) != 1 {
		t.Errorf("%d diagnostics, want 1:\n%s", len(diags), text)
	}
	for _, want := range []string{"No RDMA device on this host", "protection_domain.rxe and ", "rdma link add rxe0"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "Failed to list the RDMA devices") {
		t.Errorf("an empty device list is an answer:\n%s", text)
	}
}
