package agent

import (
	"fmt"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

func change(addr string, rev uint64) *pb.Change {
	return &pb.Change{Object: &pb.Object{Address: addr, Revision: rev}}
}

func TestHubKeepsEveryChangeUnderTheBound(t *testing.T) {
	h := newHub()
	s := h.subscribe(100, filter{})
	for i := uint64(1); i <= 10; i++ {
		h.publish(change("endpoint.a", i))
	}
	got := s.take()
	if len(got) != 10 || s.coalescedCount() != 0 {
		t.Fatalf("got %d changes, %d coalesced", len(got), s.coalescedCount())
	}
	for i, c := range got {
		if c.Object.Revision != uint64(i+1) {
			t.Errorf("change %d has revision %d", i, c.Object.Revision)
		}
	}
	if len(s.take()) != 0 {
		t.Error("take left changes behind")
	}
}

func TestHubCoalescesPerObjectPastTheBound(t *testing.T) {
	h := newHub()
	s := h.subscribe(4, filter{})
	rev := uint64(0)
	next := func(addr string) { rev++; h.publish(change(addr, rev)) }
	// A reader that never reads while 1,000 changes of 3 objects arrive.
	for i := 0; i < 1000; i++ {
		next(fmt.Sprintf("endpoint.e[%d]", i%3))
	}
	got := s.take()
	if len(got) > 4+3 {
		t.Fatalf("queue grew to %d changes for 3 objects with a bound of 4", len(got))
	}
	last := map[string]uint64{}
	for _, c := range got {
		a := c.Object.Address
		if c.Object.Revision <= last[a] {
			t.Errorf("%s: revision %d after %d: out of order", a, c.Object.Revision, last[a])
		}
		last[a] = c.Object.Revision
	}
	// The latest state of each object is never lost.
	for i, want := range []uint64{1000, 998, 999} {
		if a := fmt.Sprintf("endpoint.e[%d]", i); last[a] != want {
			t.Errorf("%s: last revision %d, want %d", a, last[a], want)
		}
	}
	if s.coalescedCount() == 0 {
		t.Error("nothing counted as coalesced")
	}
}

func TestHubPublishNeverBlocksAndUnsubscribes(t *testing.T) {
	h := newHub()
	s := h.subscribe(1, filter{})
	for i := uint64(0); i < 100000; i++ {
		h.publish(change("listener.l", i))
	}
	if n := len(s.take()); n != 1 {
		t.Errorf("one object's 100,000 changes left %d queued, want 1", n)
	}
	h.unsubscribe(s)
	if h.active() {
		t.Error("hub still active after the only watcher left")
	}
	h.publish(change("listener.l", 1))
	if n := len(s.take()); n != 0 {
		t.Errorf("an unsubscribed watcher got %d changes", n)
	}
}

func TestHubWantsOnlyWhatAWatcherMatches(t *testing.T) {
	h := newHub()
	if h.wants("endpoint.a", pb.Kind_ENDPOINT, pb.Status_CONNECTING) {
		t.Error("an unwatched hub wants changes")
	}
	s := h.subscribe(10, filter{kinds: []pb.Kind{pb.Kind_ENDPOINT, pb.Kind_LISTENER}})
	if !h.wants("endpoint.a", pb.Kind_ENDPOINT, pb.Status_CONNECTING) || h.wants("listener.l/conn/1", pb.Kind_CONNECTION, pb.Status_ESTABLISHED) {
		t.Error("wants does not follow the watcher's filter")
	}
	all := h.subscribe(10, filter{})
	if !h.wants("listener.l/conn/1", pb.Kind_CONNECTION, pb.Status_ESTABLISHED) {
		t.Error("an unfiltered watcher does not get connections")
	}
	h.unsubscribe(all)
	h.unsubscribe(s)
	if h.active() {
		t.Error("active after every watcher left")
	}
}

// A watcher that names statuses is sent only the changes into them, and
// every deletion; the hub wants a change only if some watcher would take it.
func TestHubStatusFilter(t *testing.T) {
	h := newHub()
	s := h.subscribe(100, filter{statuses: []pb.Status{pb.Status_ESTABLISHED, pb.Status_ERROR}})
	if h.wants("endpoint.a", pb.Kind_ENDPOINT, pb.Status_CONNECTING) {
		t.Error("the hub wants a change into a status no watcher asked for")
	}
	if !h.wants("endpoint.a", pb.Kind_ENDPOINT, pb.Status_ERROR) {
		t.Error("the hub does not want a change into a status a watcher asked for")
	}
	for i, st := range []pb.Status{pb.Status_CREATING, pb.Status_CONNECTING, pb.Status_ESTABLISHED, pb.Status_DISCONNECTED, pb.Status_ERROR} {
		h.publish(&pb.Change{Object: &pb.Object{Address: "endpoint.a", Revision: uint64(i + 1), Status: st}})
	}
	h.publish(&pb.Change{Deleted: true, Object: &pb.Object{Address: "endpoint.a", Revision: 6}})
	var got []string
	for _, c := range s.take() {
		if c.Deleted {
			got = append(got, "deleted")
		} else {
			got = append(got, c.Object.Status.String())
		}
	}
	if want := "ESTABLISHED ERROR deleted"; strings.Join(got, " ") != want {
		t.Errorf("the watcher got %q, want %q", got, want)
	}
}
