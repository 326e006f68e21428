package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// r asks, y reconnects through Options.Reconnect (the object's host and
// address), anything else cancels; what has no connection to make again
// is said at once, without asking.
func TestReconnectIsConfirmed(t *testing.T) {
	var asked []string
	fail := false
	m := New(Options{NoColor: true, Now: fixedClock, Reconnect: func(host, a string) (string, error) {
		asked = append(asked, host+"|"+a)
		if fail {
			return "", errors.New("endpoint.client[2] is connecting already: wait for the outcome of the connect under way, then ask again")
		}
		return a + " connects again now", nil
	}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(feedMsg{snapshot: &snapshot{objects: brokenObjects(), agent: fixtureAgent}, link: linkState{up: true}})
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	press(m, "r")
	golden(t, "footer_reconnect_prompt_120", m.footer.View())
	press(m, "n")
	if len(asked) != 0 || !strings.Contains(m.footer.View(), "cancelled: nothing changed") {
		t.Fatalf("n reconnected %q; footer %q", asked, m.footer.View())
	}
	yes := func() {
		t.Helper()
		press(m, "r")
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
		if cmd == nil {
			t.Fatal("y runs nothing")
		}
		m.Update(cmd())
	}
	yes()
	if !slices.Equal(asked, []string{"|endpoint.client[2]"}) || !strings.Contains(m.footer.View(), "endpoint.client[2] connects again now") {
		t.Errorf("asked %q; footer %q", asked, m.footer.View())
	}
	fail = true
	yes()
	if !strings.Contains(m.footer.View(), "reconnect endpoint.client[2] failed: endpoint.client[2] is connecting already") {
		t.Errorf("a refusal: footer %q", m.footer.View())
	}

	m.table.moveTo(m.table.rowIndex("listener.storage/conn/7"))
	press(m, "r")
	if !strings.Contains(m.footer.View(), "disconnect listener.storage/conn/7? Its client connects again by its reconnect policy.") {
		t.Errorf("a connection's prompt: %q", m.footer.View())
	}
	press(m, "esc")
	asked = nil
	for addr, want := range map[string]string{
		"listener.storage":      "a listener has no connection of its own",
		"protection_domain.pd0": "protection_domain.pd0 has no connection to reconnect",
	} {
		m.table.moveTo(m.table.rowIndex(addr))
		press(m, "r")
		if m.footer.prompt != "" || !strings.Contains(m.footer.View(), want) {
			t.Errorf("%s: prompt %q, footer %q", addr, m.footer.prompt, m.footer.View())
		}
	}
	if len(asked) != 0 {
		t.Errorf("asked the agent for %q", asked)
	}
}

// The last picture of an agent gone, and a declared object the agent
// does not hold, have no agent to ask.
func TestReconnectNeedsAnAgentThatHoldsTheObject(t *testing.T) {
	m := New(Options{NoColor: true, Now: fixedClock, Reconnect: func(_, a string) (string, error) { return "", errors.New("asked") }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(feedMsg{snapshot: &snapshot{objects: brokenObjects(), agent: fixtureAgent}, link: linkState{up: true}})
	m.Update(declaredMsg{list: []Declared{{Address: "endpoint.failed", Kind: KindEndpoint, InConfig: true}}})
	m.table.moveTo(m.table.rowIndex("endpoint.failed"))
	press(m, "r")
	if m.footer.prompt != "" || !strings.Contains(m.footer.View(), "endpoint.failed is not held by its agent") {
		t.Errorf("a missing object: prompt %q, footer %q", m.footer.prompt, m.footer.View())
	}
	m.Update(feedMsg{link: linkState{err: errors.New("connection refused"), downAt: fixedNow}})
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	press(m, "r")
	if m.footer.prompt != "" || !strings.Contains(m.footer.View(), "does not answer") {
		t.Errorf("an agent gone: prompt %q, footer %q", m.footer.prompt, m.footer.View())
	}
	if New(Options{NoColor: true}).reconn != nil {
		t.Error("a reconnect without Options.Reconnect")
	}
}
