package tui

import (
	"strings"
	"testing"
)

// The header's and footer's heights, which layout takes without drawing
// them, are the lines they draw, in every state that adds or takes a
// line: a banner (link down, a notice), a fabric host unreachable, the
// full help, a filter being typed.
func TestHeaderAndFooterHeightsAreWhatTheyDraw(t *testing.T) {
	lines := func(s string) int { return strings.Count(s, "\n") + 1 }
	check := func(what string, m *Model) {
		t.Helper()
		if h, v := m.header.height(), lines(m.header.View()); h != v {
			t.Errorf("%s: header height %d, draws %d lines", what, h, v)
		}
		if h, v := m.footer.height(), lines(m.footer.View()); h != v {
			t.Errorf("%s: footer height %d, draws %d lines", what, h, v)
		}
		if v := lines(m.View()); v != m.height {
			t.Errorf("%s: the screen is %d lines, want %d", what, v, m.height)
		}
	}
	m := newTestModel(100, 30, fixtureObjects())
	check("one agent", m)
	m.Update(noticeMsg("something to say"))
	check("a notice", m)
	m.Update(feedMsg{link: linkState{err: errSilent, cause: errSilent, downAt: fixedNow}})
	check("link down", m)
	press(m, "?")
	check("full help", m)
	press(m, "?", "/")
	check("filtering", m)

	f := newFabricModel(120, 30)
	check("fabric", f)
	f.Update(noticeMsg("something to say"))
	check("fabric with a notice", f)
	f = newFabricModel(120, 30)
	f.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, downAt: fixedNow}})
	check("fabric with a host unreachable", f)
}
