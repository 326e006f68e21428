package rdmacm

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

func TestMaxPrivateDataFollowsIBCMMessageSizes(t *testing.T) {
	// The kernel sends SIDR messages for ids of a UD type: UDP and IPoIB
	// ids always, IB ids with a UD QP.
	cases := []struct {
		ps   PortSpace
		qp   QPType
		d    Direction
		want int
	}{
		{PSTCP, RC, Connect, 56}, {PSTCP, RC, Accept, 196}, {PSTCP, RC, Reject, 148},
		{PSIB, RC, Connect, 56}, {PSIB, UC, Accept, 196},
		{PSIB, UD, Connect, 180}, {PSIB, UD, Accept, 136}, {PSIB, UD, Reject, 136},
		{PSIPoIB, UD, Connect, 180}, {PSIPoIB, UD, Accept, 136},
		{PSUDP, UD, Connect, 180}, {PSUDP, UD, Accept, 136}, {PSUDP, UD, Reject, 136},
	}
	for _, c := range cases {
		if got := MaxPrivateData(c.ps, c.qp, c.d); got != c.want {
			t.Errorf("MaxPrivateData(%s, %s, %s) = %d, want %d", c.ps, c.qp, c.d, got, c.want)
		}
	}
}

func TestConnParamValidateRefusesOversizedPrivateDataAndRetries(t *testing.T) {
	ok := ConnParam{PrivateData: make([]byte, 56), RetryCount: 7, RNRRetryCount: 7}
	if err := ok.validate(PSTCP, RC, Connect); err != nil {
		t.Fatalf("56 bytes on a TCP connect: %v", err)
	}
	big := ConnParam{PrivateData: make([]byte, 57)}
	err := big.validate(PSTCP, RC, Connect)
	if err == nil || !strings.Contains(err.Error(), "57 bytes exceeds the 56 bytes") {
		t.Fatalf("57 bytes on a TCP connect: %v", err)
	}
	if err := (ConnParam{RetryCount: 8}).validate(PSTCP, RC, Connect); err == nil || !strings.Contains(err.Error(), "retry_count = 8") {
		t.Fatalf("retry_count 8: %v", err)
	}
	if err := (ConnParam{RNRRetryCount: 9}).validate(PSTCP, RC, Accept); err == nil || !strings.Contains(err.Error(), "rnr_retry_count = 9") {
		t.Fatalf("rnr_retry_count 9: %v", err)
	}
}

func TestQPInitValidate(t *testing.T) {
	if err := DefaultQPInit().Validate(nil); err != nil {
		t.Fatalf("default caps: %v", err)
	}
	err := QPInit{MaxSendWR: 0, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}.Validate(nil)
	if err == nil || !strings.Contains(err.Error(), "max_send_wr must be at least 1") {
		t.Fatalf("zero send WRs: %v", err)
	}
	lim := &Limits{MaxQPWR: 100, MaxSGE: 4}
	err = QPInit{MaxSendWR: 101, MaxRecvWR: 1, MaxSendSGE: 5, MaxRecvSGE: 1}.Validate(lim)
	if err == nil || !strings.Contains(err.Error(), "max_send_wr = 101 exceeds the device limit of 100") ||
		!strings.Contains(err.Error(), "max_send_sge = 5 exceeds the device limit of 4") {
		t.Fatalf("caps over limits: %v", err)
	}
}

func TestCheckService(t *testing.T) {
	for _, c := range []struct {
		service string
		passive bool
		ok      bool
	}{
		{"7471", false, true}, {"0", true, true}, {"", true, true},
		{"0", false, false}, {"", false, false}, {"65536", true, false}, {"-1", false, false},
	} {
		err := checkService(c.service, c.passive)
		if (err == nil) != c.ok {
			t.Errorf("checkService(%q, passive=%v) = %v, want ok=%v", c.service, c.passive, err, c.ok)
		}
	}
}

func TestParsers(t *testing.T) {
	for _, s := range []string{"tcp", "udp", "ib", "ipoib", "TCP"} {
		ps, err := ParsePortSpace(s)
		if err != nil || !strings.EqualFold(ps.String(), s) {
			t.Errorf("ParsePortSpace(%q) = %v, %v", s, ps, err)
		}
	}
	if _, err := ParsePortSpace("sctp"); err == nil {
		t.Error("ParsePortSpace(sctp) succeeded")
	}
	for _, s := range []string{"rc", "uc", "ud"} {
		q, err := ParseQPType(s)
		if err != nil || q.String() != s {
			t.Errorf("ParseQPType(%q) = %v, %v", s, q, err)
		}
	}
	if DefaultQPType(PSUDP) != UD || DefaultQPType(PSIPoIB) != UD || DefaultQPType(PSTCP) != RC || DefaultQPType(PSIB) != RC {
		t.Error("DefaultQPType: UDP and IPoIB must map to UD, TCP and IB to RC (librdmacm's rdma_create_id)")
	}
}

func TestFormatGUIDMatchesIbvDevinfo(t *testing.T) {
	// GUID 02:15:5d:ff:fe:12:34:56 in network byte order read as a
	// little-endian integer.
	be := uint64(0x5634_12fe_ff5d_1502)
	if got, want := formatGUID(be), "0215:5dff:fe12:3456"; got != want {
		t.Fatalf("formatGUID = %s, want %s", got, want)
	}
}

func TestEventErrorMapsToErrno(t *testing.T) {
	rej := &EventError{Op: "rdma_connect", Event: Event{Type: Rejected, Status: 8}}
	if !errors.Is(rej, syscall.ECONNREFUSED) {
		t.Error("REJECTED must unwrap to ECONNREFUSED")
	}
	if !strings.Contains(rej.Error(), "invalid service ID") {
		t.Errorf("reject text: %s", rej)
	}
	unreach := &EventError{Op: "rdma_connect", Event: Event{Type: Unreachable, Status: -int(syscall.ETIMEDOUT)}}
	if !errors.Is(unreach, syscall.ETIMEDOUT) {
		t.Error("UNREACHABLE with -ETIMEDOUT must unwrap to ETIMEDOUT")
	}
	// A UD id's SIDR reply status is no errno: 1 is "no listener".
	sidr := &EventError{Op: "rdma_resolve_route", Event: Event{Type: Unreachable, Status: 1}}
	if !errors.Is(sidr, syscall.ECONNREFUSED) || !strings.Contains(sidr.Error(), "SIDR status 1: service ID not supported: no UD listener on that port") {
		t.Errorf("SIDR status 1: %v", sidr)
	}
	if !errors.Is(&EventError{Event: Event{Type: DeviceRemoval}}, syscall.ENODEV) {
		t.Error("DEVICE_REMOVAL must unwrap to ENODEV")
	}
}

func TestOpErrorNamesCallAndErrno(t *testing.T) {
	err := error(&OpError{Op: "rdma_create_ep", Err: syscall.EADDRINUSE})
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatal("OpError must unwrap to its errno")
	}
	if got := err.Error(); !strings.HasPrefix(got, "rdma_create_ep: address already in use (EADDRINUSE)") {
		t.Fatalf("OpError text: %q", got)
	}
}

func TestAddrInfoErrorText(t *testing.T) {
	e := &AddrInfoError{Code: EAINoName, Node: "nowhere.invalid", Service: "7471"}
	if e.Name() != "EAI_NONAME" || !strings.Contains(e.Error(), `rdma_getaddrinfo("nowhere.invalid", "7471"): name or service not known (EAI_NONAME)`) {
		t.Fatalf("AddrInfoError: %s", e)
	}
}

// A device's removal is named by itself, not by the call the id had made.
func TestDeviceRemovalNamesItself(t *testing.T) {
	err := &EventError{Op: "rdma_connect", Event: Event{Type: DeviceRemoval}}
	if err.Call() != "DEVICE_REMOVAL" || strings.Contains(err.Error(), "rdma_connect") {
		t.Errorf("call %q, error %q", err.Call(), err.Error())
	}
	if rej := (&EventError{Op: "rdma_connect", Event: Event{Type: Rejected}}); rej.Call() != "rdma_connect" {
		t.Errorf("a rejection's call is %q, want rdma_connect", rej.Call())
	}
}
