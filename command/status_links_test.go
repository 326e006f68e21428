package command

import (
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// linkTestObjects is a fabric of three hosts as fact tables: the compute
// host's endpoints, the storage hosts' listeners and the connections they
// accepted, with decoys that must not match.
func linkTestObjects() []hostObject {
	ep := func(addr string, st pb.Status, local, remote string, qp uint32, rtt time.Duration) *pb.Object {
		o := &pb.Object{Address: addr, Kind: pb.Kind_ENDPOINT, Status: st, Facts: &pb.Facts{LocalAddr: local, RemoteAddr: remote, QpNum: qp, QpType: "rc"},
			Spec: &pb.Object_Endpoint{Endpoint: &pb.EndpointSpec{Address: strings.Split(remote, ":")[0], Port: 7471}}}
		if rtt > 0 {
			o.Probe = &pb.ProbeStats{Last: int64(rtt), Sent: 10, Received: 10}
		}
		return o
	}
	conn := func(listener string, n string, st pb.Status, local, remote string, qp uint32) *pb.Object {
		return &pb.Object{Address: listener + "/conn/" + n, Parent: listener, Kind: pb.Kind_CONNECTION, Status: st, Facts: &pb.Facts{LocalAddr: local, RemoteAddr: remote, QpNum: qp, QpType: "rc"}}
	}
	s1, s2, compute := `agent.storage["s1"]`, `agent.storage["s2"]`, "agent.compute"
	return []hostObject{
		{compute, ep(`endpoint.blocks["s1"]`, pb.Status_ESTABLISHED, "10.77.1.3:40001", "10.77.1.1:7471", 17, 142*time.Microsecond)},
		{compute, ep(`endpoint.blocks["s2"]`, pb.Status_ESTABLISHED, "10.77.1.3:40002", "10.77.1.2:7471", 18, 90*time.Microsecond)},
		{compute, ep(`endpoint.other`, pb.Status_RECONNECTING, "10.77.1.3:40005", "10.77.1.1:7471", 19, 0)},
		{s1, &pb.Object{Address: `listener.blocks["s1"]`, Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, Facts: &pb.Facts{LocalAddr: "10.77.1.1:7471"}}},
		// Decoys: another client's connection, the same client's on
		// another port, and one that ended (its QP and port are gone).
		{s1, conn(`listener.blocks["s1"]`, "1", pb.Status_ESTABLISHED, "10.77.1.1:7471", "10.77.1.9:40001", 31)},
		{s1, conn(`listener.blocks["s1"]`, "2", pb.Status_ESTABLISHED, "10.77.1.1:7471", "10.77.1.3:40009", 32)},
		{s1, conn(`listener.blocks["s1"]`, "4", pb.Status_DISCONNECTED, "10.77.1.1:7471", "10.77.1.3:40005", 34)},
		{s1, conn(`listener.blocks["s1"]`, "3", pb.Status_ESTABLISHED, "10.77.1.1:7471", "10.77.1.3:40001", 33)},
		// A link within one host.
		{s1, ep(`endpoint.local`, pb.Status_ESTABLISHED, "10.77.1.1:40100", "10.77.1.1:7472", 40, 8*time.Microsecond)},
		{s1, conn(`listener.local`, "1", pb.Status_ESTABLISHED, "10.77.1.1:7472", "10.77.1.1:40100", 41)},
		{s2, conn(`listener.blocks["s2"]`, "1", pb.Status_ESTABLISHED, "10.77.1.2:7471", "10.77.1.3:40002", 51)},
	}
}

func TestLinksMatchEndsByAddressesAndPorts(t *testing.T) {
	t.Parallel()
	links := matchLinks(linkTestObjects(), nil)
	got := map[string]fabricLink{}
	for _, l := range links {
		got[l.Endpoint.Object.Address] = l
	}
	if len(links) != 4 {
		t.Fatalf("%d links, want one per endpoint (4): %v", len(links), links)
	}
	for ep, want := range map[string]struct {
		accepted, host, status string
		qp                     uint32
		rtt                    time.Duration
	}{
		`endpoint.blocks["s1"]`: {`listener.blocks["s1"]/conn/3`, `agent.storage["s1"]`, "established", 33, 142 * time.Microsecond},
		`endpoint.blocks["s2"]`: {`listener.blocks["s2"]/conn/1`, `agent.storage["s2"]`, "established", 51, 90 * time.Microsecond},
		`endpoint.local`:        {`listener.local/conn/1`, `agent.storage["s1"]`, "established", 41, 8 * time.Microsecond},
	} {
		l := got[ep]
		if l.Accepted == nil || l.Accepted.Object.Address != want.accepted || l.Accepted.Host != want.host ||
			l.Accepted.Object.Facts.QpNum != want.qp || l.Status != want.status || l.RTT != want.rtt || l.Reason != "" {
			t.Errorf("%s: %+v, want %+v", ep, l, want)
		}
	}
	// A reconnecting endpoint has no connection: the one that ended on the
	// same ports is not its link.
	if l := got["endpoint.other"]; l.Accepted != nil || l.Status != "reconnecting" || l.RTT != 0 || l.farEnd() != "? 10.77.1.1:7471" {
		t.Errorf("reconnecting endpoint: %+v (far end %q)", l, l.farEnd())
	}
	want := `endpoint.blocks["s1"] (agent.compute)` + "\t⇄ " + `listener.blocks["s1"] conn/3 (agent.storage["s1"])` + "\testablished\trtt 142µs"
	if text := got[`endpoint.blocks["s1"]`].text(); text != want {
		t.Errorf("link line %q, want %q", text, want)
	}
}

// A host that does not answer makes the links with an end there unknown:
// with its objects as last heard of (a watch), and without them (the
// endpoint's listener may be there).
func TestLinksWithAnEndOnASilentHostAreUnknown(t *testing.T) {
	t.Parallel()
	down := map[string]string{`agent.storage["s2"]`: "no answer within 2s"}
	for _, withObjects := range []bool{true, false} {
		var objects []hostObject
		for _, ho := range linkTestObjects() {
			if withObjects || ho.Host != `agent.storage["s2"]` {
				objects = append(objects, ho)
			}
		}
		for _, l := range matchLinks(objects, down) {
			switch a := l.Endpoint.Object.Address; {
			case a == `endpoint.blocks["s2"]`:
				if l.Status != "unknown" || l.RTT != 0 || !strings.Contains(l.Reason, `agent.storage["s2"]`) {
					t.Errorf("with objects %v: the link to the silent host: %+v", withObjects, l)
				}
			case l.Status == "unknown":
				t.Errorf("with objects %v: %s is unknown: %+v", withObjects, a, l)
			}
		}
	}
	// The endpoint's own host silent: unknown too.
	for _, l := range matchLinks(linkTestObjects(), map[string]string{"agent.compute": "gone"}) {
		if l.Endpoint.Host == "agent.compute" && l.Status != "unknown" {
			t.Errorf("a silent endpoint host's link: %+v", l)
		}
	}
}

// An endpoint connected to a listener no agent reached holds: unmatched,
// said so, not left out.
func TestLinkOfAnUnknownListenerIsUnmatched(t *testing.T) {
	t.Parallel()
	var objects []hostObject
	for _, ho := range linkTestObjects() {
		if ho.Host != `agent.storage["s2"]` {
			objects = append(objects, ho)
		}
	}
	for _, l := range matchLinks(objects, nil) {
		if l.Endpoint.Object.Address == `endpoint.blocks["s2"]` &&
			(l.Status != "unmatched" || !strings.Contains(l.Reason, "10.77.1.2:7471") || l.RTT != 90*time.Microsecond) {
			t.Errorf("unmatched link: %+v", l)
		}
	}
}

// Connections on the endpoint's own addresses and ports that differ only
// in their QP numbers are not its link: a stale connection whose ports
// were reused, one whose remote QP is another's. Where an agent reports
// no remote QP (0), the addresses and ports decide, as before.
func TestLinksMatchEndsByQPNumbersToo(t *testing.T) {
	t.Parallel()
	s1, compute := `agent.storage["s1"]`, "agent.compute"
	ep := &pb.Object{Address: `endpoint.blocks["s1"]`, Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
		Facts: &pb.Facts{LocalAddr: "10.77.1.3:40001", RemoteAddr: "10.77.1.1:7471", QpNum: 17, RemoteQpNum: 33, QpType: "rc"}}
	conn := func(n string, qp, remoteQP uint32) hostObject {
		return hostObject{s1, &pb.Object{Address: `listener.blocks["s1"]/conn/` + n, Parent: `listener.blocks["s1"]`, Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED,
			Facts: &pb.Facts{LocalAddr: "10.77.1.1:7471", RemoteAddr: "10.77.1.3:40001", QpNum: qp, RemoteQpNum: remoteQP, QpType: "rc"}}}
	}
	for _, tc := range []struct {
		name  string
		conns []hostObject
		want  string // the accepted connection's address, "" for none
	}{
		{"a stale connection's QPs", []hostObject{conn("1", 30, 14), conn("2", 33, 17)}, "2"},
		{"a stale connection's QPs, listed after", []hostObject{conn("2", 33, 17), conn("1", 30, 14)}, "2"},
		{"its QP right, its remote QP another's", []hostObject{conn("1", 33, 99), conn("2", 33, 17)}, "2"},
		{"its remote QP right, its QP another's", []hostObject{conn("1", 99, 17), conn("2", 33, 17)}, "2"},
		{"only decoys", []hostObject{conn("1", 30, 14), conn("2", 33, 18)}, ""},
		{"no remote QP reported", []hostObject{conn("1", 33, 0)}, "1"},
	} {
		objects := append([]hostObject{{compute, ep}}, tc.conns...)
		links := matchLinks(objects, nil)
		if len(links) != 1 {
			t.Fatalf("%s: %d links, want 1", tc.name, len(links))
		}
		l := links[0]
		switch {
		case tc.want == "" && (l.Accepted != nil || l.Status != "unmatched"):
			t.Errorf("%s: matched %+v, want unmatched", tc.name, l.Accepted)
		case tc.want != "" && (l.Accepted == nil || l.Accepted.Object.Address != `listener.blocks["s1"]/conn/`+tc.want):
			t.Errorf("%s: matched %+v, want conn/%s", tc.name, l.Accepted, tc.want)
		}
	}
}
