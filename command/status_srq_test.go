package command

import (
	"bytes"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// A listener on a shared receive queue shows it under the table, its size
// and the receives posted, and in -json; one without shows nothing.
func TestStatusShowsAListenersSRQ(t *testing.T) {
	t.Parallel()
	objs := []*pb.Object{
		{Address: "listener.many", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, LastEvent: "listening",
			Srq: &pb.SRQStats{MaxRecvWr: 255, MaxRecvSge: 1, Posted: 254, Device: "rxe0"}},
		{Address: "listener.few", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, LastEvent: "listening"},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	want := "\nShared receive queues:\n  listener.many  on rxe0: max_recv_wr 255, max_recv_sge 1, 254 posted\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("status table:\n%s\nwant it to contain:\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "max_recv_wr") != 1 {
		t.Errorf("a listener without an SRQ shows one:\n%s", b.String())
	}
	js, err := stableJSON(&pb.ListResponse{Objects: objs[:1]})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"srq": {`, `"maxRecvWr": 255`, `"posted": 254`, `"device": "rxe0"`} {
		if !strings.Contains(string(js), w) {
			t.Errorf("status -json lacks %s:\n%s", w, js)
		}
	}
}
