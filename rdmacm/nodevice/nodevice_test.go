package nodevice

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The help names what is missing, how to load Soft-RoCE and the VM.
func TestHelpSaysWhatToDo(t *testing.T) {
	for _, want := range []string{"no RDMA device", "modprobe rdma_rxe", "rdma link add rxe0 type rxe netdev ETH", "scripts/vm-run"} {
		if !strings.Contains(Help, want) {
			t.Errorf("Help lacks %q: %s", want, Help)
		}
	}
}

func TestOnThisHost(t *testing.T) {
	dir := t.TempDir()
	defer func(old string) { sysInfiniband = old }(sysInfiniband)
	sysInfiniband = filepath.Join(dir, "missing")
	if !OnThisHost() {
		t.Error("no /sys/class/infiniband: want no device")
	}
	sysInfiniband = dir
	if !OnThisHost() {
		t.Error("an empty /sys/class/infiniband: want no device")
	}
	if err := os.Mkdir(filepath.Join(dir, "rxe0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if OnThisHost() {
		t.Error("rxe0 listed: want a device")
	}
}
