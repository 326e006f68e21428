//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// deleteBound is how long `rdma link delete` may take under a process that
// keeps running: generous, since the VM is slow and shared; measured well
// under it.
const deleteBound = 20 * time.Second

// TestDeviceRemovalReleasesTheDevice deletes the device under live
// connections with registered buffers, a listener and a PD of their own,
// without closing any of them: the binding releases everything of the
// device at DEVICE_REMOVAL, so `rdma link delete` completes while this
// process runs. The device is then added back, and the same channel and
// PD (allocated again) connect and carry a message.
func TestDeviceRemovalReleasesTheDevice(t *testing.T) {
	dev, netdev := testDevice(t), os.Getenv("RDMAFORM_TEST_NETDEV")
	if netdev == "" {
		t.Fatal("RDMAFORM_TEST_NETDEV is not set: this test deletes and re-adds the testbed's rxe device")
	}
	ch := newChannel(t)
	pd, err := AllocPD(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pd.Close() })
	qp := DefaultQPInit()
	l, port := listenOn(t, ch, pd, &qp)
	clients, servers := connectMany(t, ch, l, port, 20)
	all := append(append([]*ID{l}, clients...), servers...)
	t.Cleanup(func() {
		for _, id := range all {
			id.Close()
		}
	})
	for _, id := range clients {
		if _, err := id.RegisterBuffer(4096); err != nil {
			t.Fatal(err)
		}
	}
	if pd.Allocated() != true {
		t.Fatal("the PD is not allocated before the removal")
	}

	start := time.Now()
	deleted := make(chan error, 1)
	go func() {
		out, err := exec.Command("rdma", "link", "delete", dev).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("rdma link delete %s: %v: %s", dev, err, out)
		}
		deleted <- err
	}()
	// Whatever fails, the device comes back for the tests after this
	// one once the deletion finished.
	gone, readded := false, false
	t.Cleanup(func() {
		if readded {
			return
		}
		if !gone {
			select {
			case <-deleted:
			case <-time.After(5 * time.Second):
				// Still held: the deletion completes when this process
				// exits; the tests after this one find no device.
				return
			}
		}
		addDevice(t, dev, netdev)
	})

	ctx := ctxFor(t, time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	removed := 0
	for _, id := range all {
		wg.Go(func() {
			for {
				e, err := id.NextEvent(ctx)
				if err != nil {
					t.Errorf("waiting for DEVICE_REMOVAL: %v", err)
					return
				}
				if e.Type == DeviceRemoval {
					mu.Lock()
					removed++
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if removed != len(all) {
		t.Fatalf("DEVICE_REMOVAL on %d of %d ids", removed, len(all))
	}
	select {
	case err := <-deleted:
		gone = true
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(deleteBound):
		buf := make([]byte, 1<<20)
		t.Logf("goroutines:\n%s\nuverbs descriptors: %v", buf[:runtime.Stack(buf, true)], uverbsFDs())
		t.Fatalf("rdma link delete %s still blocked %v after it started, with this process running and its ids not closed", dev, deleteBound)
	}
	took := time.Since(start)
	t.Logf("rdma link delete %s completed in %v with this process running (%d ids not closed by the test)", dev, took.Round(time.Millisecond), len(all))
	if n := LiveIDs(); n != 0 {
		t.Errorf("%d ids still registered after the device's removal released them", n)
	}
	if pd.Allocated() {
		t.Error("the PD is still allocated on the removed device")
	}
	for _, id := range all {
		if err := id.Disconnect(); err == nil {
			t.Error("an id of the removed device still works")
			break
		}
	}

	addDevice(t, dev, netdev)
	readded = true
	// The same channel and PD serve the device's new life.
	l2, port2 := listenOn(t, ch, pd, &qp)
	id := dialOn(t, ch, pd, port2, &qp)
	ctx = ctxFor(t, 30*time.Second)
	accepted := make(chan *ID, 1)
	go func() {
		req, _, err := l2.GetRequest(ctx)
		if err != nil {
			t.Errorf("GetRequest after the device came back: %v", err)
			close(accepted)
			return
		}
		if err := req.Accept(ctx, ConnParam{}); err != nil {
			t.Errorf("Accept after the device came back: %v", err)
		}
		accepted <- req
	}()
	if _, err := id.Connect(ctx, ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatalf("Connect after the device came back: %v", err)
	}
	srv := <-accepted
	if srv == nil {
		t.FailNow()
	}
	t.Cleanup(func() { srv.Close() })
	if !pd.Allocated() {
		t.Error("the PD was not allocated again")
	}
	exchange(t, id, srv, "after the device came back")
}

// listenOn listens on the test address with a QP configuration on pd.
func listenOn(t *testing.T, ch *EventChannel, pd *PD, qp *QPInit) (*ID, string) {
	port := freePort()
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: Passive | NumericHost, PortSpace: PSTCP, QPType: RC})
	l, err := CreateEP(ai, pd, qp, ch)
	if err != nil {
		t.Fatalf("CreateEP(passive): %v", err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Listen(listenBacklog); err != nil {
		t.Fatal(err)
	}
	return l, port
}

func dialOn(t *testing.T, ch *EventChannel, pd *PD, port string, qp *QPInit) *ID {
	ai := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	id, err := Dial(ctxFor(t, 30*time.Second), ai, pd, qp, ch, 0)
	if err != nil {
		t.Fatalf("Dial after the device came back: %v", err)
	}
	t.Cleanup(func() { id.Close() })
	return id
}

// uverbsFDs lists this process's descriptors on RDMA device files.
func uverbsFDs() []string {
	var out []string
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.Contains(target, "infiniband") || strings.Contains(target, "uverbs") || strings.Contains(target, "anon_inode") {
			out = append(out, e.Name()+"->"+target)
		}
	}
	return out
}

// addDevice adds the rxe device back and waits for its port.
func addDevice(t *testing.T, dev, netdev string) {
	if out, err := exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).CombinedOutput(); err != nil {
		t.Errorf("re-adding %s: %v: %s", dev, err, out)
	}
	waitPortActive(t, dev)
}

func waitPortActive(t *testing.T, dev string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		out, _ := exec.Command("rdma", "link", "show", dev+"/1").CombinedOutput()
		if strings.Contains(string(out), "state ACTIVE") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s did not come back ACTIVE", dev)
}
