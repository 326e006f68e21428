//go:build linux && cgo && integration

package rdmanl

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/rdmaform/rdmaform/rdmacm"
)

// connectedPair makes, in this process, a listener on addr:7931 and a
// connection to it, both established; they close with the test.
func connectedPair(t *testing.T, addr string) (l, client, server *rdmacm.ID) {
	t.Helper()
	ch, err := rdmacm.NewEventChannel()
	if err != nil {
		t.Fatalf("rdma_create_event_channel: %v (run in the Soft-RoCE VM: scripts/vm-run)", err)
	}
	t.Cleanup(func() { ch.Close() })
	port := "7931"
	pai, err := rdmacm.GetAddrInfo(addr, port, &rdmacm.Hints{Flags: rdmacm.Passive | rdmacm.NumericHost, PortSpace: rdmacm.PSTCP, QPType: rdmacm.RC})
	if err != nil {
		t.Fatal(err)
	}
	qp := rdmacm.DefaultQPInit()
	if l, err = rdmacm.CreateEP(pai, nil, &qp, ch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Listen(8); err != nil {
		t.Fatal(err)
	}
	ai, err := rdmacm.GetAddrInfo(addr, port, &rdmacm.Hints{Flags: rdmacm.NumericHost, PortSpace: rdmacm.PSTCP, QPType: rdmacm.RC})
	if err != nil {
		t.Fatal(err)
	}
	if client, err = rdmacm.CreateEP(ai, nil, &qp, ch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	accepted := make(chan error, 1)
	go func() {
		req, _, err := l.GetRequest(ctx)
		if err == nil {
			server = req
			err = req.Accept(ctx, rdmacm.ConnParam{})
		}
		accepted <- err
	}()
	if _, err := client.Connect(ctx, rdmacm.ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatalf("rdma_connect: %v", err)
	}
	if err := <-accepted; err != nil {
		t.Fatalf("rdma_accept: %v", err)
	}
	t.Cleanup(func() { server.Close() })
	return l, client, server
}

func testAddr(t *testing.T) string {
	a := os.Getenv("RDMAFORM_TEST_ADDR")
	if a == "" {
		t.Fatal("RDMAFORM_TEST_ADDR is not set: run in the Soft-RoCE VM (scripts/vm-run) or set it to an address of an RDMA device")
	}
	return a
}

// TestDumpMatchesIproute2 dumps the kernel's cm_ids and QPs while this
// process holds a listener and a connection, and checks them against the
// ids' own facts and against "rdma resource show cm_id" (iproute2 reads
// the same dump with its own decoder). With RDMAFORM_RECORD_RDMANL=1 it writes the
// raw replies into testdata (the unit tests' recordings).
func TestDumpMatchesIproute2(t *testing.T) {
	addr := testAddr(t)
	_, client, server := connectedPair(t, addr)
	c, err := Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ids, err := c.CMIDs()
	if err != nil {
		t.Fatal(err)
	}
	qps, err := c.QPs()
	if err != nil {
		t.Fatal(err)
	}
	pid := uint32(os.Getpid())
	mine := func(o Owner) bool {
		tgid, _, ok := ProcessOf(o.PID)
		return ok && tgid == pid
	}
	want := netip.MustParseAddrPort(netip.MustParseAddr(addr).String() + ":7931")
	var sawListen, sawClient, sawServer bool
	for _, id := range ids {
		if !mine(id.Owner) {
			continue
		}
		t.Logf("cm_id %+v", id)
		cf, _ := client.Facts()
		sf, _ := server.Facts()
		switch {
		case id.State == CMListen && id.Src == want && !id.HasQP:
			sawListen = true
		case id.State == CMConnect && id.HasQP && id.QPNum == cf.QPNum:
			sawClient = id.Dst == want && id.Src == cf.Local && id.QPType == QPTypeRC && id.PortSpace == PortSpaceTCP
		case id.State == CMConnect && id.HasQP && id.QPNum == sf.QPNum:
			sawServer = id.Src == want && id.Dst == sf.Remote
		}
	}
	if !sawListen || !sawClient || !sawServer {
		t.Errorf("the dump lacks this process's ids: listener %v, client %v, server %v", sawListen, sawClient, sawServer)
	}
	var qpSeen int
	for _, q := range qps {
		cf, _ := client.Facts()
		sf, _ := server.Facts()
		if mine(q.Owner) && (q.Number == cf.QPNum || q.Number == sf.QPNum) {
			qpSeen++
			if q.State.String() != "RTS" || q.Type != QPTypeRC || q.Device == "" {
				t.Errorf("QP %+v: want RTS, RC, a device", q)
			}
		}
	}
	if qpSeen != 2 {
		t.Errorf("found %d of the 2 QPs of this process in the QP dump", qpSeen)
	}

	// iproute2 lists the same ids of this process, with the same numbers.
	out, err := exec.Command("rdma", "resource", "show", "cm_id").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show cm_id: %v\n%s", err, out)
	}
	t.Logf("rdma resource show cm_id:\n%s", out)
	var theirs, ours []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "cm-idn ") {
			if n := field(line, "cm-idn"); n != "" && field(line, "pid") != "" {
				tgid, _, _ := ProcessOf(parseU32(field(line, "pid")))
				if tgid == pid {
					theirs = append(theirs, n+" "+field(line, "state"))
				}
			}
		}
	}
	for _, id := range ids {
		if mine(id.Owner) {
			ours = append(ours, strconv.FormatUint(uint64(id.Number), 10)+" "+id.State.String())
		}
	}
	if strings.Join(theirs, ",") != strings.Join(ours, ",") {
		t.Errorf("rdma resource show cm_id lists %v for this process, the dump %v", theirs, ours)
	}

	if os.Getenv("RDMAFORM_RECORD_RDMANL") == "1" {
		record(t, c, "testdata")
	}
}

// record writes the raw dump replies, one file per command.
func record(t *testing.T, c *Conn, dir string) {
	devs, err := c.Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("devices: %v %v", devs, err)
	}
	for name, cmd := range map[string]uint16{"devices": cmdGet, "cm_id": cmdResCMIDGet, "qp": cmdResQPGet} {
		var msgs []netlink.Message
		if cmd == cmdGet {
			msgs, err = c.dump(cmd, nil)
		} else {
			msgs, err = c.dumpDevice(cmd, devs[0].Index)
		}
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, m := range msgs {
			raw, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, raw...)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded in %s (pid %d)", dir, os.Getpid())
}

// field is the word after key in one line of "rdma resource show".
func field(line, key string) string {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == key {
			return f[i+1]
		}
	}
	return ""
}

func parseU32(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}
