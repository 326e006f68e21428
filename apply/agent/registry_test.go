package agent

import (
	"errors"
	"sync"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

func TestRegistryClaimIsIdempotentByAddressAndToken(t *testing.T) {
	a := New(nil)
	made := 0
	mk := func() *object { made++; return a.newObject("endpoint.e[0]", "tok-1", "", pb.Kind_ENDPOINT) }
	var wg sync.WaitGroup
	got := make([]*object, 50)
	var mu sync.Mutex
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, _, err := a.reg.claim("endpoint.e[0]", "tok-1", pb.Kind_ENDPOINT, func() *object {
				mu.Lock()
				defer mu.Unlock()
				return mk()
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = o
		}()
	}
	wg.Wait()
	if made != 1 || a.reg.len() != 1 {
		t.Fatalf("50 concurrent claims with one token made %d objects, registry holds %d", made, a.reg.len())
	}
	for _, o := range got {
		if o != got[0] {
			t.Fatal("claims returned different objects")
		}
	}
	_, _, err := a.reg.claim("endpoint.e[0]", "tok-2", pb.Kind_ENDPOINT, mk)
	var ex *errExists
	if !errors.As(err, &ex) {
		t.Fatalf("another token: %v, want errExists", err)
	}
	if _, _, err := a.reg.claim("endpoint.e[0]", "tok-1", pb.Kind_LISTENER, mk); !errors.As(err, &ex) {
		t.Fatalf("same token, another kind: %v", err)
	}
	if _, _, err := a.reg.claim("endpoint.e[1]", "", pb.Kind_ENDPOINT, func() *object {
		return a.newObject("endpoint.e[1]", "", "", pb.Kind_ENDPOINT)
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.reg.claim("endpoint.e[1]", "", pb.Kind_ENDPOINT, mk); !errors.As(err, &ex) {
		t.Fatalf("an empty token never matches: %v", err)
	}
	if !a.reg.remove(got[0]) || a.reg.remove(got[0]) {
		t.Fatal("remove should succeed once")
	}
}

func TestAddressesOfConnectionsAreReserved(t *testing.T) {
	for _, bad := range []string{"", "listener.l/conn/1", `listener.l["a/b"]/conn/12`} {
		if checkAddress(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A for_each key may hold "/", even "/conn/1": the address ends in "]".
	for _, ok := range []string{"endpoint.client[3]", `endpoint.c["rack-12/host-07"]`, `listener.l["x/conn/1"]@ns#1a2b3c4d`} {
		if err := checkAddress(ok); err != nil {
			t.Error(err)
		}
	}
}

func TestRevisionsGrowAcrossObjects(t *testing.T) {
	a := New(nil)
	s := a.hub.subscribe(100, filter{})
	o1 := a.newObject("endpoint.a", "t", "", pb.Kind_ENDPOINT)
	o2 := a.newObject("endpoint.b", "t", "", pb.Kind_ENDPOINT)
	o1.event(pb.Status_CONNECTING, "connecting", "")
	o2.event(pb.Status_CONNECTING, "connecting", "")
	o1.event(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	o1.markDeleted()
	o1.event(pb.Status_ERROR, "late", "") // dropped: the object is gone
	got := s.take()
	if len(got) != 4 {
		t.Fatalf("%d changes, want 4", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Object.Revision <= got[i-1].Object.Revision {
			t.Errorf("revision %d after %d", got[i].Object.Revision, got[i-1].Object.Revision)
		}
	}
	if !got[3].Deleted || got[3].Object.Address != "endpoint.a" {
		t.Errorf("last change %v, want endpoint.a deleted", got[3])
	}
	h := o1.snapshot(true).History
	if len(h) != 3 || h[0].Name != "created" || h[2].Status != pb.Status_ESTABLISHED {
		t.Errorf("history %v", h)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	a := New(nil)
	o := a.newObject("endpoint.a", "t", "", pb.Kind_ENDPOINT)
	for i := 0; i < 3*historyLimit; i++ {
		o.event(pb.Status_RECONNECTING, "reconnecting", "")
	}
	if n := len(o.snapshot(true).History); n != historyLimit {
		t.Errorf("history holds %d events, want %d", n, historyLimit)
	}
	if n := len(o.snapshot(false).History); n != 0 {
		t.Errorf("a snapshot without history has %d events", n)
	}
}

func TestSummaryCarriesWhatPlannersNeed(t *testing.T) {
	a := New(nil)
	o := a.newObject("endpoint.a", "tok-a", "", pb.Kind_ENDPOINT)
	o.failure(pb.Status_REJECTED, "REJECTED", &agentError{Call: "rdma_connect", Msg: "refused"})
	s := o.summary()
	if s.Token != "tok-a" || s.Status != pb.Status_REJECTED || s.LastError.GetCall() != "rdma_connect" || s.LastError.Message != "" {
		t.Errorf("summary %v", s)
	}
	if o.summary() != s {
		t.Error("an unchanged object's summary was rebuilt")
	}
	o.event(pb.Status_RECONNECTING, "reconnecting", "")
	if o.summary() == s {
		t.Error("a changed object's summary was reused")
	}
}
