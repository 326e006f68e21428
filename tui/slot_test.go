package tui

import (
	"fmt"
	"testing"
)

// A listener's connections come and go under new names (conn/N climbs
// with each one accepted): the slots of those gone are taken for the
// new ones, so the monitor's memory follows what it shows, not every
// name it ever saw; and the table is what a rebuild makes throughout.
func TestSlotsOfAddressesGoneAreTakenAgain(t *testing.T) {
	listener := Object{Address: "listener.l", Kind: KindListener, Status: StatusListening, LocalAddr: "10.0.0.1:7471"}
	conn := func(n int) Object {
		return Object{Address: fmt.Sprintf("listener.l/conn/%d", n), Parent: "listener.l", Kind: KindConnection,
			Status: StatusEstablished, LocalAddr: "10.0.0.1:7471", RemoteAddr: fmt.Sprintf("10.0.0.2:%d", 50000+n)}
	}
	m := newTestModel(120, 20, []Object{listener, conn(0), conn(1)})
	for n := 2; n < 1000; n++ {
		m.Update(feedMsg{updates: []Update{{Object: conn(n)}, {Object: Object{Address: conn(n - 2).Address}, Deleted: true}}, link: linkState{up: true}})
		if n%97 == 0 {
			checkAgainstRebuild(t, fmt.Sprintf("connection %d", n), m)
		}
	}
	if n := len(m.world.byIndex); n > 8 {
		t.Errorf("%d slots for 3 objects shown after 1,000 connections came and went", n)
	}
	if got := addresses(m.table.rows); len(got) != 3 || got[2] != conn(999).Address {
		t.Errorf("rows %q", got)
	}
}
