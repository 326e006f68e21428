package tui

import (
	"strings"
	"testing"
	"time"
)

// A fabric grouped by host heads each host's rows with its name,
// address, whether it answers and its counts; an unreachable host's
// header says so above its kept rows. At several widths, 20 lines tall
// so that every row shows.
func TestGoldenFabricHostGroups(t *testing.T) {
	for _, width := range []int{160, 120, 80} {
		m := newFabricModel(width, 20)
		m.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, cause: errSilent, retryAt: fixedNow.Add(time.Second), downAt: fixedNow}})
		name := "fabric_groups_" + itoa(width) + "x20_unreachable"
		golden(t, name, m.View())
		checkBox(t, m.View(), width, 20)
		for _, want := range []string{
			"── compute · reachable · 3 objects · 1 problem · 10.77.1.3:7470 ─",
			`── storage["s1"] · reachable · 2 objects · 10.77.1.1:7470 ─`,
			`── storage["s2"] · unreachable as of 10:00:00 · 2 objects · 2 problems · 10.77.1.2:7470`,
			`storage["s2"] ✗  └ ⇄ endpoin`,
		} {
			if !strings.Contains(m.View(), want[:min(len(want), width)]) {
				t.Errorf("%d columns: no %q in\n%s", width, want, m.View())
			}
		}
	}
}

// Headers are not rows: the selection moves from row to row past them
// and stays on screen to the last row, however few lines the table has;
// h (not grouped) draws none.
func TestHostHeadersKeepTheSelectionOnScreen(t *testing.T) {
	m := newFabricModel(120, 12)
	m.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, downAt: fixedNow}})
	for i := range len(m.table.rows) {
		if m.table.cursor != i {
			t.Fatalf("after %d downs the cursor is on row %d", i, m.table.cursor)
		}
		v := m.View()
		checkBox(t, v, 120, 12)
		sel := strings.TrimSpace(m.table.rows[i].label())
		if !strings.Contains(lineWith(v, "▸ "), sel[:min(len(sel), 20)]) {
			t.Fatalf("row %d (%s) is not on screen:\n%s", i, sel, v)
		}
		press(m, "j")
	}
	if !strings.Contains(m.View(), "── storage[\"s2\"] · unreachable as of 10:00:00") {
		t.Errorf("the last host's header is not above its rows:\n%s", m.View())
	}
	press(m, "h")
	if strings.Contains(m.View(), "── ") {
		t.Errorf("not grouped, a header is drawn:\n%s", m.View())
	}
}

func lineWith(view, s string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
