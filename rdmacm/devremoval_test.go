//go:build linux && cgo && integration

package rdmacm

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Soft-RoCE cannot disassociate a process from a removed device: the kernel
// finishes `rdma link delete` only once every process that opened the
// device has exited, and librdmacm keeps a device open for the life of the
// process. So the ids live in a child process, and this test, which must be
// the first of its process to touch librdmacm (its file sorts first), drives
// the deletion and restores the device.
const holderEnv = "RDMAFORM_DEVICE_REMOVAL_HOLDER"

func TestDeviceRemovalUnderLiveConnections(t *testing.T) {
	if os.Getenv(holderEnv) != "" {
		holdThroughDeviceRemoval(t)
		return
	}
	dev, netdev := testDevice(t), os.Getenv("RDMAFORM_TEST_NETDEV")
	if netdev == "" {
		t.Fatal("RDMAFORM_TEST_NETDEV is not set: this test deletes and re-adds the testbed's rxe device")
	}
	if usesVerbs(t) {
		t.Fatal("this process already opened an RDMA device, so `rdma link delete` could not finish while it runs: " +
			"run this test first or alone (-test.run TestDeviceRemoval)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command(self, "-test.run", "^TestDeviceRemovalUnderLiveConnections$", "-test.v")
	holder.Env = append(os.Environ(), holderEnv+"=1")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var transcript []string
	ready := false
	for !ready && lines.Scan() {
		transcript = append(transcript, lines.Text())
		ready = strings.Contains(lines.Text(), "HOLDER READY")
	}
	if !ready {
		holder.Wait()
		t.Fatalf("the holder never got ready:\n%s", strings.Join(transcript, "\n"))
	}
	deleteStart := time.Now()
	deleted := make(chan error, 1)
	go func() {
		out, err := exec.Command("rdma", "link", "delete", dev).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("rdma link delete %s: %v: %s", dev, err, out)
		}
		deleted <- err
	}()
	t.Cleanup(func() {
		if out, err := exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).CombinedOutput(); err != nil {
			t.Errorf("re-adding %s: %v: %s", dev, err, out)
		}
		waitPortActive(t, dev)
	})
	for lines.Scan() {
		transcript = append(transcript, lines.Text())
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- holder.Wait() }()
	select {
	case err := <-waitErr:
		t.Logf("holder:\n%s", strings.Join(transcript, "\n"))
		if err != nil {
			t.Fatalf("the holder failed: %v", err)
		}
	case <-time.After(90 * time.Second):
		holder.Process.Kill()
		t.Fatalf("the holder hung after the device was deleted:\n%s", strings.Join(transcript, "\n"))
	}
	select {
	case err := <-deleted:
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("rdma link delete finished %v after it started, once the holder exited", time.Since(deleteStart).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatal("rdma link delete did not finish after the holder exited")
	}
}

// holdThroughDeviceRemoval runs in the child: it holds 20 connected pairs
// and a listener, reports ready, and checks each id sees the device go.
func holdThroughDeviceRemoval(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	clients, servers := connectMany(t, ch, l, port, 20)
	all := append(append([]*ID{l}, clients...), servers...)
	fmt.Println("HOLDER READY")

	ctx := ctxFor(t, 60*time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[EventType]int{}
	for _, id := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				e, err := id.NextEvent(ctx)
				if err != nil {
					t.Errorf("waiting for the device loss: %v", err)
					return
				}
				mu.Lock()
				seen[e.Type]++
				mu.Unlock()
				if e.Type == DeviceRemoval {
					return
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("events after rdma link delete: %v\n", seen)
	if seen[DeviceRemoval] != len(all) {
		t.Errorf("DEVICE_REMOVAL on %d of %d ids", seen[DeviceRemoval], len(all))
	}
	closeStart := time.Now()
	for _, id := range all {
		if err := id.Close(); err != nil {
			t.Errorf("Close after the device loss: %v", err)
		}
	}
	fmt.Printf("closed %d ids in %v\n", len(all), time.Since(closeStart))
	start := time.Now()
	ai, err := GetAddrInfo(testAddr(t), port, &Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	if err == nil {
		var id *ID
		id, err = CreateEP(ai, nil, &qp, ch)
		if err == nil {
			_, err = id.Connect(ctx, ConnParam{})
			id.Close()
		}
		ai.Close()
	}
	fmt.Printf("a new endpoint without the device: %v (after %v)\n", err, time.Since(start))
	if err == nil {
		t.Error("a new endpoint connected although the device is gone")
	}
	if !errors.Is(err, syscall.ENODEV) && !errors.Is(err, syscall.EADDRNOTAVAIL) && !errors.Is(err, syscall.ENETUNREACH) && !errors.Is(err, syscall.ECONNREFUSED) {
		t.Logf("note: the error is %T", err)
	}
}

// usesVerbs reports whether this process has an RDMA device open.
func usesVerbs(t *testing.T) bool {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.HasPrefix(target, "/dev/infiniband/uverbs") {
			return true
		}
	}
	return false
}

func waitPortActive(t *testing.T, dev string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("rdma", "link", "show", dev+"/1").CombinedOutput()
		if strings.Contains(string(out), "state ACTIVE") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s did not come back ACTIVE", dev)
}
