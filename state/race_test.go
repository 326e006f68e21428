package state

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

const racers = 50

type raceResult struct {
	lockID, loserErr string
	serial, counter  int
}

// race starts 50 processes at once, each locking spec (waiting up to
// timeout), incrementing the "counter" output and persisting.
func race(t *testing.T, spec, timeout string) []raceResult {
	t.Helper()
	results := make([]raceResult, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		cmd := childCommand(t, "race", spec)
		cmd.Env = append(cmd.Env, "RDMAFORM_LOCK_TIMEOUT="+timeout)
		lines, err := readLines(cmd)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			out := lines()
			if err := cmd.Wait(); err != nil {
				t.Errorf("racer %d: %v: %q", i, err, out)
				return
			}
			r := &results[i]
			for _, l := range out {
				k, v, _ := strings.Cut(l, " ")
				switch k {
				case "LOCKED":
					r.lockID = v
				case "LOSER":
					r.loserErr = v
				case "SERIAL":
					r.serial, _ = strconv.Atoi(v)
				case "COUNTER":
					r.counter, _ = strconv.Atoi(v)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	return results
}

// checkRace checks that the winners' increments all landed with distinct,
// increasing serials and that every loser was told a winner's lock ID.
func checkRace(t *testing.T, results []raceResult, final *State, wantAll bool) {
	t.Helper()
	winners := map[string]bool{}
	var serials, counters []int
	for _, r := range results {
		if r.lockID != "" {
			winners[r.lockID] = true
			serials = append(serials, r.serial)
			counters = append(counters, r.counter)
		}
	}
	if wantAll && len(winners) != racers {
		why := map[string]bool{}
		for _, r := range results {
			if r.lockID == "" {
				why[r.loserErr] = true
			}
		}
		t.Fatalf("%d of %d racers got the lock with a long timeout; the others said: %v", len(winners), racers, why)
	}
	losers := 0
	for _, r := range results {
		if r.lockID != "" {
			continue
		}
		losers++
		told := false
		for id := range winners {
			if strings.Contains(r.loserErr, "ID:        "+id) {
				told = true
			}
		}
		if !told {
			t.Errorf("a loser was not told which winner held the lock: %s", r.loserErr)
		}
	}
	sort.Ints(serials)
	sort.Ints(counters)
	for i := range serials {
		if serials[i] != i+1 || counters[i] != i+1 {
			t.Fatalf("winner %d: serial %d counter %d; want both %d (a lost update or a repeated serial)", i, serials[i], counters[i], i+1)
		}
	}
	got, _ := strconv.Atoi(string(final.Outputs["counter"].Value))
	if got != len(winners) || int(final.Serial) != len(winners) {
		t.Fatalf("final counter %d serial %d, want %d winners' increments", got, final.Serial, len(winners))
	}
	t.Logf("%d winners, %d losers (each told the holder's ID and details)", len(winners), losers)
}

func TestRaceLocal(t *testing.T) {
	for _, tc := range []struct {
		name, timeout string
		all           bool
	}{{"no-wait", "0s", false}, {"wait", "30m", true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), DefaultPath)
			results := race(t, "local:"+p, tc.timeout)
			m := NewFilesystem(LocalOptions{Path: p})
			if err := m.RefreshState(); err != nil {
				t.Fatal(err)
			}
			checkRace(t, results, m.State(), tc.all)
		})
	}
}

func TestRaceEtcd(t *testing.T) {
	ep := etcdtest.Start(t)
	for _, tc := range []struct {
		name, timeout string
		all           bool
	}{{"no-wait", "0s", false}, {"wait", "30m", true}} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "/race-" + tc.name
			results := race(t, "etcd:"+ep+"|"+prefix, tc.timeout)
			m := newTestEtcd(t, ep, prefix)
			if err := m.RefreshState(); err != nil {
				t.Fatal(err)
			}
			checkRace(t, results, m.State(), tc.all)
		})
	}
}
