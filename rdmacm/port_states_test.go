package rdmacm

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Port states come from sysfs, in ibv_devinfo's words, without opening a
// device.
func TestPortStatesFromSysfs(t *testing.T) {
	root := t.TempDir()
	write := func(dev, port, state string) {
		dir := filepath.Join(root, dev, "ports", port)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state"), []byte(state+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mlx5_0", "2", "1: DOWN")
	write("mlx5_0", "1", "4: ACTIVE")
	write("rxe0", "1", "4: ACTIVE")
	old := sysfsInfiniband
	sysfsInfiniband = root
	t.Cleanup(func() { sysfsInfiniband = old })
	got, err := PortStates()
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{
		{Name: "mlx5_0", Ports: []Port{{Num: 1, State: "PORT_ACTIVE"}, {Num: 2, State: "PORT_DOWN"}}},
		{Name: "rxe0", Ports: []Port{{Num: 1, State: "PORT_ACTIVE"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	sysfsInfiniband = filepath.Join(root, "absent")
	if got, err := PortStates(); err != nil || got != nil {
		t.Errorf("no devices: %v, %v", got, err)
	}
}
