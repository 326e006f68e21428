package rdmanl

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
)

// recorded reads replies recorded in the Soft-RoCE VM by
// TestDumpMatchesIproute2 (RDMAFORM_RECORD_RDMANL=1): a listener on
// 10.77.0.1:7931 and one connection to it, made by one process (thread
// 154), as "rdma resource show cm_id" listed them then:
//
//	link rxe0/1 cm-idn 0 state LISTEN ps TCP pid 154 src-addr 10.77.0.1:7931 dst-addr 0.0.0.0:0
//	link rxe0/1 cm-idn 1 lqpn 17 qp-type RC state CONNECT ps TCP pid 154 src-addr 10.77.0.1:59466 dst-addr 10.77.0.1:7931
//	link rxe0/1 cm-idn 2 lqpn 18 qp-type RC state CONNECT ps TCP pid 154 src-addr 10.77.0.1:7931 dst-addr 10.77.0.1:59466
func recorded(t *testing.T, name string) []netlink.Message {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []netlink.Message
	for len(b) > 0 {
		var m netlink.Message
		if err := m.UnmarshalBinary(b[:nlmsgLen(t, b)]); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		b = b[nlmsgLen(t, b):]
	}
	return out
}

// nlmsgLen is the aligned length of the message b starts with.
func nlmsgLen(t *testing.T, b []byte) int {
	if len(b) < 16 {
		t.Fatalf("a truncated netlink message: %d bytes", len(b))
	}
	n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16 | int(b[3])<<24 // the recording's host was little-endian
	return min((n+3)&^3, len(b))
}

func TestParseRecordedDevices(t *testing.T) {
	devs, err := ParseDevices(recorded(t, "devices.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Device{{Index: 0, Name: "rxe0"}}; !reflect.DeepEqual(devs, want) {
		t.Errorf("devices = %+v, want %+v", devs, want)
	}
}

func TestParseRecordedCMIDs(t *testing.T) {
	ids, err := ParseCMIDs(recorded(t, "cm_id.bin"))
	if err != nil {
		t.Fatal(err)
	}
	ap := netip.MustParseAddrPort
	owner := Owner{PID: 154}
	want := []CMID{
		{Device: "rxe0", Port: 1, Number: 0, State: CMListen, PortSpace: PortSpaceTCP, Src: ap("10.77.0.1:7931"), Dst: ap("0.0.0.0:0"), Owner: owner},
		{Device: "rxe0", Port: 1, Number: 1, State: CMConnect, PortSpace: PortSpaceTCP, Src: ap("10.77.0.1:59466"), Dst: ap("10.77.0.1:7931"),
			HasQP: true, QPNum: 17, QPType: QPTypeRC, Owner: owner},
		{Device: "rxe0", Port: 1, Number: 2, State: CMConnect, PortSpace: PortSpaceTCP, Src: ap("10.77.0.1:7931"), Dst: ap("10.77.0.1:59466"),
			HasQP: true, QPNum: 18, QPType: QPTypeRC, Owner: owner},
	}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("cm_ids:\n got %+v\nwant %+v", ids, want)
	}
	if ids[0].State.String() != "LISTEN" || ids[1].QPType.String() != "RC" || ids[0].PortSpace.String() != "tcp" {
		t.Errorf("names: %s %s %s", ids[0].State, ids[1].QPType, ids[0].PortSpace)
	}
}

func TestParseRecordedQPs(t *testing.T) {
	qps, err := ParseQPs(recorded(t, "qp.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// The two connected QPs, each the other's remote, on PD 1, and the
	// kernel's own GSI QP (QP1), which names no process.
	want := []QP{
		{Device: "rxe0", Port: 1, Number: 17, Remote: 18, Type: QPTypeRC, State: 3, PDN: 1, Owner: Owner{PID: 154}},
		{Device: "rxe0", Port: 1, Number: 18, Remote: 17, Type: QPTypeRC, State: 3, PDN: 1, Owner: Owner{PID: 155}},
		{Device: "rxe0", Port: 1, Number: 1, Type: 1, State: 3, Owner: Owner{KernName: "ib_core"}},
	}
	if !reflect.DeepEqual(qps, want) {
		t.Errorf("QPs:\n got %+v\nwant %+v", qps, want)
	}
	if qps[0].State.String() != "RTS" || qps[2].Type.String() != "GSI" {
		t.Errorf("names: %s %s", qps[0].State, qps[2].Type)
	}
}

// A table entry cut short (a length past the end) is an error, not a
// silently shorter list.
func TestParseTruncatedCMIDs(t *testing.T) {
	msgs := recorded(t, "cm_id.bin")
	m := msgs[0]
	m.Data = m.Data[:len(m.Data)-5]
	if _, err := ParseCMIDs([]netlink.Message{m}); err == nil {
		t.Error("a truncated dump decoded without error")
	}
}

// Dial on a kernel without an RDMA core (this package's unit tests' host)
// says so; elsewhere it opens a socket that Close closes, twice.
func TestDialSaysWhenTheKernelHasNoRDMA(t *testing.T) {
	c, err := Dial()
	if err != nil {
		if !errors.Is(err, syscall.EPROTONOSUPPORT) || !strings.Contains(err.Error(), "socket(AF_NETLINK, NETLINK_RDMA): the kernel has no RDMA netlink (no RDMA core") {
			t.Errorf("Dial: %v", err)
		}
		return
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
