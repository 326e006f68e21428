package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

func TestStatusWithoutAgentSaysSo(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	sock := filepath.Join(t.TempDir(), "agent.sock")
	code := run([]string{"status", "-agent=" + sock}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 1 || !strings.Contains(errb.String(), sock) || !strings.Contains(errb.String(), "rdmaform agent") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestStatusTableOrderAndTotals(t *testing.T) {
	t.Parallel()
	objs := []*pb.Object{
		{Address: "endpoint.c[10]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED},
		{Address: "listener.l/conn/10", Parent: "listener.l", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED},
		{Address: "listener.l/conn/2", Parent: "listener.l", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED},
		{Address: "endpoint.c[2]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_REJECTED,
			LastError: &pb.ErrorInfo{Call: "rdma_connect", ErrnoName: "ECONNREFUSED"}},
		{Address: "listener.l", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING},
		{Address: "protection_domain.p", Kind: pb.Kind_PROTECTION_DOMAIN, Status: pb.Status_READY},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	var order []string
	for _, line := range strings.Split(b.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], ".") {
			order = append(order, f[0])
		}
	}
	want := []string{"protection_domain.p", "listener.l", "listener.l/conn/2", "listener.l/conn/10", "endpoint.c[2]", "endpoint.c[10]"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", order, want)
	}
	for _, s := range []string{"rdma_connect: ECONNREFUSED", "6 objects: 3 established, 1 listening, 1 ready, 1 rejected"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
	b.Reset()
	writeStatusTable(&b, objs[5:])
	if !strings.Contains(b.String(), "\n1 object: 1 ready\n") {
		t.Errorf("one object's total:\n%s", b.String())
	}
}

// A reconnecting endpoint has no connection: its last one's local port,
// QP and round trip are not shown as if current.
func TestStatusTableHidesTheFactsOfAnEndedConnection(t *testing.T) {
	t.Parallel()
	facts := &pb.Facts{LocalAddr: "10.77.0.1:39851", RemoteAddr: "10.77.0.1:7570", Device: "rxe0", Port: 1, QpNum: 31, QpType: "rc"}
	objs := []*pb.Object{
		{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts, Probe: &pb.ProbeStats{Last: 940000}},
		{Address: "endpoint.re", Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING, Facts: facts, Probe: &pb.ProbeStats{Last: 940000}},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	for _, line := range strings.Split(b.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 {
			continue
		}
		switch f[0] {
		case "endpoint.up":
			if f[3] != "10.77.0.1:39851" || f[6] != "31" || f[8] != "940µs" {
				t.Errorf("established row: %q", line)
			}
		case "endpoint.re":
			if f[3] != "-" || f[4] != "10.77.0.1:7570" || f[6] != "-" || f[7] != "-" {
				t.Errorf("reconnecting row: %q", line)
			}
		}
	}
}

// status -json, as the table, shows no QP or local port of a connection
// that ended, and leaves the agent's own list as it was.
func TestStatusJSONLeavesOutTheFactsOfAnEndedConnection(t *testing.T) {
	t.Parallel()
	facts := &pb.Facts{LocalAddr: "10.77.0.1:39851", RemoteAddr: "10.77.0.1:7570", Device: "rxe0", Port: 1, QpNum: 31, QpType: "rc", QpState: "RTS"}
	up := &pb.Object{Address: "endpoint.up", Status: pb.Status_ESTABLISHED, Facts: facts}
	re := &pb.Object{Address: "endpoint.re", Status: pb.Status_RECONNECTING, Facts: facts}
	got := currentFacts([]*pb.Object{up, re})
	if got[0] != up || got[0].Facts.QpNum != 31 {
		t.Errorf("an established endpoint's facts changed: %v", got[0].Facts)
	}
	f := got[1].Facts
	if f.QpNum != 0 || f.LocalAddr != "" || f.QpState != "" || f.RemoteAddr != "10.77.0.1:7570" || f.Device != "rxe0" || f.QpType != "rc" {
		t.Errorf("a reconnecting endpoint's facts: %v", f)
	}
	if facts.QpNum != 31 {
		t.Errorf("the list's own facts were changed: %v", facts)
	}
}

// status -json is indented the same way every time (protojson varies its
// spacing on purpose), so that scripts may compare or grep it.
func TestStatusJSONIsStable(t *testing.T) {
	t.Parallel()
	list := &pb.ListResponse{Objects: []*pb.Object{{Address: "endpoint.a[0]", Status: pb.Status_ESTABLISHED, Facts: &pb.Facts{QpNum: 17}}}}
	b, err := stableJSON(list)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "objects": [
    {
      "address": "endpoint.a[0]",
      "status": "ESTABLISHED",
      "facts": {
        "qpNum": 17
      }
    }
  ]
}`
	if string(b) != want {
		t.Fatalf("status -json gave\n%s\nwant\n%s", b, want)
	}
}

func TestStatusWatchPrintsChangesOnly(t *testing.T) {
	t.Parallel()
	f := watchFilter{}
	e := func(status pb.Status, event string) *pb.Change {
		return &pb.Change{Object: &pb.Object{Address: "endpoint.e", Status: status, LastEvent: event}}
	}
	for i, c := range []struct {
		ch   *pb.Change
		want bool
	}{
		{e(pb.Status_ESTABLISHED, "ESTABLISHED"), true},
		{e(pb.Status_ESTABLISHED, "ESTABLISHED"), false}, // a probe's round trip
		{e(pb.Status_DEGRADED, "probe lost"), true},
		{e(pb.Status_DEGRADED, "probe lost"), false},
		{&pb.Change{Deleted: true, Object: &pb.Object{Address: "endpoint.e"}}, true},
		{e(pb.Status_ESTABLISHED, "ESTABLISHED"), true},
	} {
		if got := f.changed(c.ch); got != c.want {
			t.Errorf("change %d: %v, want %v", i, got, c.want)
		}
	}
}

// An agent that holds nothing lists no objects, rather than leaving
// "objects" out (jq '.objects[]' then fails).
func TestStatusJSONOfAnEmptyAgentHasObjects(t *testing.T) {
	t.Parallel()
	b, err := stableJSON(&pb.ListResponse{Agent: &pb.InfoResponse{Pid: 7}})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if objs, ok := doc["objects"].([]any); !ok || len(objs) != 0 {
		t.Errorf("objects %v in\n%s", doc["objects"], b)
	}
}

// status -json's 64-bit integers are numbers, as scripts compare them,
// and it carries what protojson's mapping does (names, enums, bytes),
// which a protojson reader still accepts.
func TestStatusJSONNumbersAreNumbers(t *testing.T) {
	t.Parallel()
	list := &pb.ListResponse{Objects: []*pb.Object{{
		Address: "endpoint.a[0]", Status: pb.Status_DEGRADED, ConnectedSince: 1_764_460_800_123_456_789,
		Probe: &pb.ProbeStats{Last: 1500, Sent: 10, Lost: 3}, Facts: &pb.Facts{QpNum: 17},
	}}}
	b, err := stableJSON(list)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	o := doc["objects"].([]any)[0].(map[string]any)
	probe := o["probe"].(map[string]any)
	if o["status"] != "DEGRADED" || o["connectedSince"] != json.Number("1764460800123456789") || probe["lost"] != json.Number("3") || probe["last"] != json.Number("1500") {
		t.Errorf("status -json (64-bit integers must be JSON numbers):\n%s", b)
	}
	var back pb.ListResponse
	if err := protojson.Unmarshal(b, &back); err != nil || !proto.Equal(&back, list) {
		t.Errorf("protojson reads back %v (%v), want %v", &back, err, list)
	}
}

// A degraded endpoint shows its probes lost, not its last answered round
// trip; a datagram listener shows how many requests it answered.
func TestStatusTableShowsProbeLossAndAnsweredRequests(t *testing.T) {
	t.Parallel()
	facts := &pb.Facts{LocalAddr: "10.77.0.1:39851", RemoteAddr: "10.77.0.1:7570", Device: "rxe0", Port: 1, QpNum: 31, QpType: "rc"}
	objs := []*pb.Object{
		{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts, Probe: &pb.ProbeStats{Last: 940000, Sent: 120, Lost: 1}},
		{Address: "endpoint.bad", Kind: pb.Kind_ENDPOINT, Status: pb.Status_DEGRADED, Facts: facts, LastEvent: "probe lost",
			Probe: &pb.ProbeStats{Last: 982000, Sent: 85, Lost: 84, ConsecutiveLost: 4, Degraded: true}},
		{Address: "listener.ud", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, LastEvent: "listening", AcceptedTotal: 3,
			Spec: &pb.Object_Listener{Listener: &pb.ListenerSpec{PortSpace: "udp"}}},
		{Address: "listener.ibud", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, LastEvent: "listening", AcceptedTotal: 1,
			Spec: &pb.Object_Listener{Listener: &pb.ListenerSpec{PortSpace: "ib", Qp: &pb.QP{Type: "ud"}}}},
		{Address: "listener.rc", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, LastEvent: "listening", AcceptedTotal: 2,
			Spec: &pb.Object_Listener{Listener: &pb.ListenerSpec{PortSpace: "tcp"}}},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	rows := map[string][]string{}
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	if f := rows["endpoint.up"]; len(f) < 10 || f[8] != "940µs" || f[9] != "1/120" {
		t.Errorf("established row: %q", f)
	}
	if f := rows["endpoint.bad"]; len(f) < 10 || f[8] != "-" || f[9] != "84/85" {
		t.Errorf("degraded row: %q", f)
	}
	if !strings.Contains(b.String(), "listening; answered 3 requests") || !strings.Contains(b.String(), "listening; answered 1 request\n") {
		t.Errorf("the datagram listeners' answered requests are missing:\n%s", b.String())
	}
	if strings.Count(b.String(), "answered") != 2 {
		t.Errorf("a connected listener shows answered requests:\n%s", b.String())
	}
}

// writeCounter counts the writes it is given.
type writeCounter struct{ n int }

func (c *writeCounter) Write(p []byte) (int, error) { c.n++; return len(p), nil }

// The status table reaches its output in a few large writes, not one a
// cell (16,877 system calls for 1,600 objects).
func TestStatusTableIsWrittenInFewWrites(t *testing.T) {
	t.Parallel()
	var objs []*pb.Object
	for i := range 500 {
		objs = append(objs, &pb.Object{Address: fmt.Sprintf("endpoint.e[%d]", i), Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, LastEvent: "ESTABLISHED"})
	}
	var c writeCounter
	writeStatusTable(&c, objs)
	if c.n > 20 {
		t.Errorf("%d writes for 500 rows", c.n)
	}
}

// The private data peers sent is listed under the table, for the objects
// that got some, in the table's order: text quoted, the rest in hex.
func TestStatusListsTheReceivedPrivateDataUnderTheTable(t *testing.T) {
	t.Parallel()
	objs := []*pb.Object{
		{Address: "endpoint.bin", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, ReceivedPrivateData: []byte{0xca, 0xfe, 0x01}},
		{Address: "endpoint.many[0]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, ReceivedPrivateData: []byte("srv-accept")},
		{Address: "listener.srv/conn/1", Parent: "listener.srv", Kind: pb.Kind_CONNECTION, Status: pb.Status_ESTABLISHED, ReceivedPrivateData: []byte("many-0")},
		{Address: "listener.srv", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	want := `
Private data received:
  listener.srv/conn/1  "many-0"
  endpoint.bin         hex cafe01
  endpoint.many[0]     "srv-accept"

4 objects: 3 established, 1 listening
`
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("status ends with:\n%s\nwant:%s", b.String(), want)
	}

	j, err := stableJSON(&pb.ListResponse{Objects: objs[2:3]})
	if err != nil || !strings.Contains(string(j), `"receivedPrivateData": "bWFueS0w"`) {
		t.Errorf("status -json lacks the connection's private data (base64 of many-0): %s, %v", j, err)
	}

	b.Reset()
	writeStatusTable(&b, objs[3:])
	if strings.Contains(b.String(), "Private data") {
		t.Errorf("status without private data lists some:\n%s", b.String())
	}
}
