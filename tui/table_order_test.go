package tui

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// matchPeersFromScratch is the peers of the objects, matched over all
// of them, as the world matched them before it kept them by change.
func matchPeersFromScratch(objects map[string]*Object) map[string]string {
	peers := make(map[string]string)
	endpoints := make(map[ends]string)
	for a, o := range objects {
		if o.Kind == KindEndpoint && o.LocalAddr != "" && o.RemoteAddr != "" && o.Status != StatusMissing {
			endpoints[ends{o.LocalAddr, o.RemoteAddr}] = a
		}
	}
	for a, o := range objects {
		if o.Kind != KindConnection || o.RemoteAddr == "" {
			continue
		}
		if e, ok := endpoints[ends{o.RemoteAddr, o.LocalAddr}]; ok {
			peers[a] = e
			peers[e] = a
		}
	}
	return peers
}

// buildRows orders and filters the objects into table rows from
// scratch, as the table did before it kept them in order by change
// (tableOrder), which the tests compare with it: top-level
// objects in sort order, each listener followed by its accepted
// connections (sorted the same way) unless it is folded. While a filter is
// active, matching connections show even under a folded listener, and a
// listener shows when any of its connections match, so that matches keep
// their context.
func buildRows(objects map[string]*Object, m matcher, order func(a, b *Object) int, folded map[string]bool, peers map[string]string) []row {
	var tops []*Object
	children := make(map[string][]*Object)
	for _, o := range objects {
		if o.Parent != "" {
			if _, ok := objects[o.Parent]; ok {
				children[o.Parent] = append(children[o.Parent], o)
				continue
			}
		}
		tops = append(tops, o) // including connections whose listener is gone
	}
	slices.SortFunc(tops, order)

	rows := make([]row, 0, len(objects))
	var shown []*Object
	for _, o := range tops {
		kids := children[o.Address]
		shown = shown[:0]
		for _, k := range kids {
			if m.match(k) {
				shown = append(shown, k)
			}
		}
		if !m.match(o) && len(shown) == 0 {
			continue
		}
		isFolded := folded[o.Address] && m.all()
		rows = append(rows, row{obj: o, children: len(kids), folded: isFolded, peer: peers[o.Address]})
		if isFolded {
			continue
		}
		slices.SortFunc(shown, order)
		for _, k := range shown {
			rows = append(rows, row{obj: k, child: true, peer: peers[k.Address]})
		}
	}
	return rows
}

// randomFabric plays random changes on a small fabric: listeners whose
// connections are the peers of endpoints, objects created, changed,
// deleted (listeners too, leaving their connections top-level) and
// declared without being held, snapshots, the agent going away.
type randomFabric struct {
	rng  *rand.Rand
	held map[string]Object
	step int
	// size is how many endpoints and connections there may be: 30 if
	// zero.
	size int
}

func (f *randomFabric) listener(i int) Object {
	return Object{Address: fmt.Sprintf("listener.l[%d]", i), Kind: KindListener, Status: StatusListening,
		LocalAddr: fmt.Sprintf("10.0.1.%d:7471", i), Device: "rxe0", Port: 1, LastEvent: "listening", LastEventAt: ago(time.Hour)}
}

func (f *randomFabric) endpoint(k int) Object {
	return Object{Address: fmt.Sprintf("endpoint.c[%d]", k), Kind: KindEndpoint, Status: StatusEstablished,
		LocalAddr: fmt.Sprintf("10.0.0.%d:5000", k), RemoteAddr: f.listener(k % 3).LocalAddr, QPNum: uint32(k + 1), QPType: "RC", Device: "rxe0", Port: 1}
}

func (f *randomFabric) conn(k int) Object {
	l := f.listener(k % 3)
	return Object{Address: fmt.Sprintf("%s/conn/%d", l.Address, k), Parent: l.Address, Kind: KindConnection, Status: StatusEstablished,
		LocalAddr: l.LocalAddr, RemoteAddr: f.endpoint(k).LocalAddr, QPType: "RC", Device: "rxe0", Port: 1}
}

// some is a random object of the fabric, changed at random.
func (f *randomFabric) some() Object {
	var o Object
	switch k := f.rng.IntN(cmp.Or(f.size, 30)); f.rng.IntN(5) {
	case 0:
		o = f.listener(k % 3)
	case 1, 2:
		o = f.endpoint(k)
	default:
		o = f.conn(k)
	}
	statuses := []string{StatusEstablished, StatusReconnecting, StatusRejected, StatusError, StatusConnecting, StatusDisconnected}
	if o.Kind != KindListener {
		o.Status = statuses[f.rng.IntN(len(statuses))]
	}
	o.Reconnects = f.rng.IntN(4)
	o.LastEvent = []string{"ESTABLISHED", "REJECTED", "rejected a request", "UNREACHABLE"}[f.rng.IntN(4)]
	o.LastEventAt = ago(time.Duration(f.rng.IntN(100)) * time.Second)
	if f.rng.IntN(2) == 0 {
		f.step++
		o.Probe = &ProbeStats{Last: time.Duration(1+f.rng.IntN(50)) * time.Microsecond, Mean: time.Duration(1+f.rng.IntN(50)) * time.Microsecond,
			Sent: uint64(100 * f.step), Lost: uint64(f.rng.IntN(3)), Degraded: f.rng.IntN(5) == 0}
	}
	return o
}

// The table keeps its rows, their index and widths, the peers and the
// totals by change as buildRows and a match over every object make them
// from scratch, and the screen drawn with the rows' lines kept is the
// screen drawn afresh, through random changes, sorts, filters, folds,
// sizes, moves of the selection and of the clock.
func TestTableOrderMatchesARebuild(t *testing.T) {
	checkRandomFabric(t, 0, 20, 200)
}

// The same on a fabric big enough that a sort of every row, or a batch
// that changes most of them, takes the order's bucket sort
// (tableOrder.bucketSort), the rows of every sort but the last event,
// reconnects and rtt ones.
func TestTableOrderMatchesARebuildLarge(t *testing.T) {
	checkRandomFabric(t, 400, 4, 120)
}

func checkRandomFabric(t *testing.T, size int, seeds uint64, steps int) {
	t.Helper()
	for seed := range seeds {
		f := &randomFabric{rng: rand.New(rand.NewPCG(seed, 1)), held: make(map[string]Object), size: size}
		var objs []Object
		for range max(20, size) {
			o := f.some()
			f.held[o.Address] = o
		}
		for _, o := range f.held {
			objs = append(objs, o)
		}
		now := fixedNow
		m := New(Options{NoColor: true, Now: func() time.Time { return now }})
		if seed%2 == 1 { // in colour: rows are styled by health, selection, focus, a stale view
			r := lipgloss.NewRenderer(nil)
			r.SetColorProfile(termenv.ANSI)
			m.table.st = newStyles(r)
		}
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
		m.Update(feedMsg{snapshot: &snapshot{objects: objs, agent: fixtureAgent}, link: linkState{up: true}})
		for step := range steps {
			now = now.Add(time.Duration(f.rng.IntN(1500)) * time.Millisecond) // the rows' clocks move
			what := f.rng.IntN(22)
			switch {
			case what < 10: // a batch of changes
				var ups []Update
				n := 1 + f.rng.IntN(8)
				if size > 0 && f.rng.IntN(3) == 0 {
					n = size * 2 // most of the fabric at once
				}
				for range n {
					o := f.some()
					if f.rng.IntN(4) == 0 {
						ups = append(ups, Update{Object: Object{Address: o.Address}, Deleted: true})
						delete(f.held, o.Address)
					} else {
						ups = append(ups, Update{Object: o})
						f.held[o.Address] = o
					}
				}
				m.Update(feedMsg{updates: ups, link: linkState{up: true}})
			case what == 10: // a snapshot
				objs = nil // the world keeps the last one's
				for _, o := range f.held {
					if f.rng.IntN(3) > 0 {
						objs = append(objs, o)
					}
				}
				clear(f.held)
				for _, o := range objs {
					f.held[o.Address] = o
				}
				m.Update(feedMsg{snapshot: &snapshot{objects: objs, agent: fixtureAgent}, link: linkState{up: true}})
			case what == 11: // the agent goes away, keeping the last picture
				m.Update(feedMsg{link: linkState{err: ErrAgentGone, downAt: fixedNow}})
			case what == 12: // what is declared
				var decl []Declared
				for range f.rng.IntN(10) {
					o := f.some()
					if o.Kind != KindConnection {
						decl = append(decl, Declared{Address: o.Address, Kind: o.Kind, InConfig: true, InState: f.rng.IntN(2) == 0})
					}
				}
				m.Update(declaredMsg{list: decl})
			case what == 13:
				press(m, "s")
			case what == 14:
				press(m, "!")
			case what == 15:
				filters := []string{"", "rej", "conn", "c[1", "established"}
				m.table.setFilter(filters[f.rng.IntN(len(filters))])
			case what == 16:
				m.table.folded[f.listener(f.rng.IntN(3)).Address] = f.rng.IntN(2) == 0
				m.table.dirty = true
				m.table.refresh()
			case what == 17:
				m.Update(tea.WindowSizeMsg{Width: 60 + f.rng.IntN(120), Height: 10 + f.rng.IntN(30)})
			case what == 18:
				press(m, "enter", "tab")
			default:
				press(m, []string{"j", "k", "G", "g", "down"}[f.rng.IntN(5)])
			}
			checkAgainstRebuild(t, fmt.Sprintf("seed %d step %d what %d", seed, step, what), m)
			if t.Failed() {
				return
			}
		}
	}
}

// rowIndex is the row that shows address a, or the first.
func (t *tablePane) rowIndex(a string) int {
	i, _ := t.rowOf(a)
	return i
}

func checkAgainstRebuild(t *testing.T, at string, m *Model) {
	t.Helper()
	w, tb := m.world, m.table
	tb.refresh()
	objects := maps.Collect(w.shownObjects)
	if len(objects) != w.shownN {
		t.Errorf("%s: %d objects shown, counted %d", at, len(objects), w.shownN)
	}
	if want := matchPeersFromScratch(objects); !maps.Equal(w.peers, want) {
		t.Errorf("%s: peers %v, want %v", at, w.peers, want)
	}
	order := tb.sort.compare
	if tb.sort == sortByRTT {
		order = tb.rtt.compare
	}
	want := buildRows(objects, newMatcher(tb.filter, tb.unhealthy), order, tb.folded, w.peers)
	if !slices.Equal(tb.rows, want) {
		t.Errorf("%s (sort %s, filter %q): rows\n%q\nwant\n%q", at, tb.sort, tb.filter, addresses(tb.rows), addresses(want))
	}
	index := make(map[string]int)
	widest := make([]int, len(allColumns))
	for i, r := range want {
		index[r.obj.Address] = i
		for c, col := range allColumns {
			if col.content != nil {
				widest[c] = max(widest[c], col.content(&r))
			}
		}
	}
	got := make(map[string]int)
	for a := range w.slots {
		if i, ok := tb.rowOf(a); ok {
			got[a] = i
		}
	}
	if !maps.Equal(got, index) {
		t.Errorf("%s: rows found by address %v, want %v", at, got, index)
	}
	if !slices.Equal(tb.widest, widest) {
		t.Errorf("%s: widths %v, want %v", at, tb.widest, widest)
	}
	totals, problems := make(map[string]int), 0
	for _, o := range objects {
		totals[shownStatus(o)]++
		if healthOf(o) != healthOK {
			problems++
		}
	}
	view := m.View()
	cached := tb.lines
	tb.lines = rowCache{}
	if fresh := m.View(); view != fresh {
		t.Errorf("%s: the screen with the rows' lines kept\n%s\ndiffers from the screen drawn afresh\n%s", at, view, fresh)
	}
	tb.lines = cached
	if got, gotProblems := w.totals(); !maps.Equal(got, totals) || gotProblems != problems {
		t.Errorf("%s: totals %v, %d problems; want %v, %d", at, got, gotProblems, totals, problems)
	}
}

// naturalKey orders as naturalCompare does.
func TestNaturalKeyOrdersAsNaturalCompare(t *testing.T) {
	in := []string{"endpoint.c[10]", "endpoint.c[2]", "endpoint.c[1]", "endpoint.b", "endpoint.c[02x]", "endpoint.c", "endpoint.c[]",
		"a1b", "a1", "a", "a0", "a9z", "a10", "a 1", "a/1", "a:1", "x123456789012345678901234567890", "x99", "listener.s/conn/3", "listener.s/conn/12"}
	for _, a := range in {
		for _, b := range in {
			want := naturalCompare(a, b)
			ka, kb := naturalKey(a), naturalKey(b)
			got := 0
			switch {
			case ka < kb:
				got = -1
			case ka > kb:
				got = 1
			}
			if got != want {
				t.Errorf("%q vs %q: key order %d, naturalCompare %d", a, b, got, want)
			}
		}
	}
}

// The layout's measures of the address, QP and device cells, which do
// not build them, agree with the cells.
func TestCellWidthsAsTheCells(t *testing.T) {
	objs := []*Object{
		{Address: "endpoint.c[1]", QPNum: 1234, QPType: "RC", Device: "rxe0", Port: 1},
		{Address: "listener.l/conn/7", Parent: "listener.l", QPType: "UD", Device: "mlx5_0"},
		{Address: "listener.l/conn/", Parent: "listener.l", QPNum: 7, QPType: "", Device: "rxe0", Port: 12},
		{Address: "endpoint.ünï[\"é\"]", QPNum: 1, QPType: "RÇ", Device: "rxé0", Port: 2},
		{Address: "listener.l/conn/界", Parent: "listener.l", QPNum: 99, QPType: "\u0301RC", Device: "\u0301", Port: 1},
		{Address: "x", Device: "rxe0", Port: -1},
	}
	for _, o := range objs {
		for _, r := range []row{{obj: o}, {obj: o, child: true}, {obj: o, child: true, peer: "endpoint.c[3]"},
			{obj: o, child: true, peer: "endpoint.界"}, {obj: o, children: 12}, {obj: o, children: 3, folded: true}} {
			if got, want := labelWidth(&r), cellWidth(r.label()); got != want {
				t.Errorf("%+v: label width %d, want %d", r, got, want)
			}
			if got, want := qpWidth(&r), cellWidth(qpCell(r, time.Time{})); got != want {
				t.Errorf("%+v: QP width %d, want %d", r, got, want)
			}
			if got, want := deviceWidth(&r), cellWidth(device(o)); got != want {
				t.Errorf("%+v: device width %d, want %d", r, got, want)
			}
		}
	}
}
