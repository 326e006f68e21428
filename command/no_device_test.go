package command

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// noDevices is the device answers of an agent on a host without any RDMA
// device: the agent lists none, and no address has one.
type noDevices struct{}

func (noDevices) Devices(context.Context) ([]planner.Device, error) { return nil, nil }

func (noDevices) DeviceFor(context.Context, string) (string, error) {
	return "", fmt.Errorf("%w: %s", planner.ErrNoDevice, nodevice.Help)
}

// On a host without any RDMA device, plan, apply and validate
// -device-check say so in one message, which says how to load Soft-RoCE
// and where the VM is: for a wildcard listener too, which plan let
// through for apply to fail on.
func TestNoDeviceIsOneMessageEverywhere(t *testing.T) {
	for _, src := range []string{
		`listener "any" {
  address = "0.0.0.0"
  port    = 7471
}`,
		`listener "any" {
  address = "::"
  port    = 7471
}`,
		planTestConfig,
	} {
		f := newMemFabric()
		m := Meta{
			Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
				return &fabricConn{Refresher: f, Fabric: f, Devices: noDevices{}, CreateBeforeDestroy: true}, nil
			},
			// What hostDevices gives on a host without devices.
			Devices: func() (config.DeviceLimits, error) {
				return hostDeviceLimits{byName: map[string]config.DeviceAttr{}, routes: map[string]route{}}, nil
			},
		}
		dir := planDir(t, src)
		for _, args := range [][]string{{"plan", "-no-color"}, {"apply", "-auto-approve", "-no-color"}, {"validate", "-device-check", "-no-color"}} {
			code, out, errs := m.cmd(t, dir, "", args...)
			if code != 1 || !strings.Contains(errs, "Error: "+nodevice.Summary) || !strings.Contains(errs, nodevice.Help) || strings.Count(errs, "Error: ") != 1 {
				t.Errorf("%s, %s: code %d\n%s%s", src, args[0], code, out, errs)
			}
		}
		if len(f.live) != 0 {
			t.Errorf("%s: apply made %v", src, f.live)
		}
	}
}

// The same on this very host, through its own agent and devices: on a
// host without RDMA devices (the project's build host) plan, apply,
// validate -device-check and status all say nodevice.Help; on one with
// them (the Soft-RoCE VM) the wildcard listener plans and validates, and
// a device the host lacks is named with those it has.
func TestNoDeviceMessageOnThisHost(t *testing.T) {
	socket, _ := inProcessAgent(t)
	settings := fmt.Sprintf("rdmaform {\n  agent {\n    socket = %q\n  }\n}\n", socket)
	dir := planDir(t, settings+`
listener "any" {
  address = "0.0.0.0"
  port    = 17471
}
`)
	none := nodevice.OnThisHost()
	m := Meta{}
	commands := [][]string{{"plan", "-no-color"}, {"validate", "-device-check", "-no-color"}}
	if none {
		commands = append(commands, []string{"apply", "-auto-approve", "-no-color"})
	}
	for _, args := range commands {
		code, out, errs := m.cmd(t, dir, "", args...)
		if none && (code != 1 || !strings.Contains(errs, nodevice.Help)) || !none && code != 0 {
			t.Errorf("%s (no device: %v): code %d\n%s%s", args[0], none, code, out, errs)
		}
	}
	code, out, errs := m.cmd(t, dir, "", "status", "-agent="+socket)
	if code != 0 || strings.Contains(out, nodevice.Help) != none {
		t.Errorf("status (no device: %v): code %d\n%s%s", none, code, out, errs)
	}

	dir = planDir(t, settings+`
protection_domain "p" {
  device = "nosuch0"
}
`)
	code, out, errs = m.cmd(t, dir, "", "validate", "-device-check", "-no-color")
	want := nodevice.Help
	if !none {
		want = `no RDMA device named "nosuch0" on this host; it has `
	}
	if code != 1 || !strings.Contains(errs, want) {
		t.Errorf("validate -device-check of nosuch0 (no device: %v): code %d\n%s%s", none, code, out, errs)
	}
}
