package tui

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// headerPane shows the agent, its devices, the totals by status and, when
// the data is not live, a banner saying why.
type headerPane struct {
	w      *world
	st     *styles
	now    func() time.Time
	target string // where the source connects, until the agent says
	demo   bool
	notice string // Options.Notice's line, once it came
	// declaredErr is why the declared objects could not be read, if so:
	// the table then shows only what the agent holds.
	declaredErr error

	width int

	totals        map[string]int // cached per world version
	problems      int            // the objects not healthy, cached with totals
	totalsVersion uint64
}

func newHeaderPane(w *world, st *styles, now func() time.Time, target string, demo bool) *headerPane {
	return &headerPane{w: w, st: st, now: now, target: target, demo: demo, totalsVersion: ^uint64(0)}
}

func (h *headerPane) setSize(width int) { h.width = width }

// View renders three lines, and a fourth for the banner when there is one.
func (h *headerPane) View() string {
	var lines []string
	if h.w.fabric() {
		lines = h.fabricHeader()
	} else {
		lines = []string{h.agentLine(), h.devicesLine(), h.totalsLine()}
		if b := h.banner(); b != "" {
			lines = append(lines, b)
		}
	}
	for i, l := range lines {
		lines[i] = fit(l, h.width)
	}
	return strings.Join(lines, "\n")
}

// height is the number of lines View draws, found without drawing them:
// layout needs it after every batch, and a fabric's header costs more
// to draw than the batch to take in.
func (h *headerPane) height() int {
	if h.w.fabric() {
		if _, down := h.hostLinks(); len(down) > 0 || h.notice != "" {
			return 4
		}
		return 3
	}
	if h.banner() != "" {
		return 4
	}
	return 3
}

func (h *headerPane) agentLine() string {
	s := h.st.title.Render("rdmaform monitor")
	if h.demo {
		s += "  " + h.st.demo.Render(" DEMO DATA: synthetic objects, no agent ")
	}
	a := h.w.agent
	socket := a.Socket
	if socket == "" {
		socket = h.target
	}
	if socket != "" {
		s += "  agent " + socket
	}
	if h.w.synced {
		if a.PID != 0 {
			s += fmt.Sprintf("  pid %d", a.PID)
		}
		switch {
		case !h.w.link.up:
			s += "  (unreachable)" // an uptime would go on counting for an agent that may be gone
		case !a.StartedAt.IsZero():
			s += "  up " + span(h.now().Sub(a.StartedAt))
		}
	}
	return s
}

func (h *headerPane) devicesLine() string {
	devs := h.w.agent.Devices
	if len(devs) == 0 {
		return h.st.dim.Render("devices: none reported")
	}
	parts := make([]string, 0, len(devs))
	for _, d := range devs {
		p := d.Name
		for _, port := range d.Ports {
			state := port.State
			if state == "ACTIVE" {
				state = h.st.statusText(StatusEstablished, state)
			} else {
				state = h.st.statusText(StatusDisconnected, state)
			}
			p += fmt.Sprintf(" %d:%s", port.Num, state)
		}
		parts = append(parts, p)
	}
	return "devices: " + strings.Join(parts, " · ")
}

// totalsLine counts objects by status, worst first.
func (h *headerPane) totalsLine() string {
	if h.totalsVersion != h.w.version {
		h.totals, h.problems = h.w.totals()
		h.totalsVersion = h.w.version
	}
	statuses := make([]string, 0, len(h.totals))
	for s := range h.totals {
		statuses = append(statuses, s)
	}
	sort.Slice(statuses, func(i, j int) bool {
		ri, rj := statusRank(statuses[i]), statusRank(statuses[j])
		if ri != rj {
			return ri < rj
		}
		return statuses[i] < statuses[j]
	})
	s := fmt.Sprintf("%d objects", h.w.shownN)
	if h.problems > 0 {
		word := "problems"
		if h.problems == 1 {
			word = "problem"
		}
		s += " · " + h.st.problems.Render(fmt.Sprintf("%d %s", h.problems, word))
	}
	for _, st := range statuses {
		s += " · " + h.st.statusText(st, fmt.Sprintf("%d %s", h.totals[st], st))
	}
	if h.declaredErr != nil {
		s += h.st.dim.Render(" · declared objects unknown: " + termsafe.String(h.declaredErr.Error()))
	}
	return s
}

// banner says why the view is not live, or that the agent changed.
func (h *headerPane) banner() string {
	l := h.w.link
	if l.up {
		r := h.w.restartShown(h.now())
		if r == nil {
			if h.notice != "" {
				return h.st.banner.Render(fit(" "+termsafe.String(h.notice)+" ", h.width))
			}
			return ""
		}
		// Short enough for 80 columns with five-digit pids and a
		// thousand objects (the header's first line says since when).
		gone := fmt.Sprintf("%d objects gone", len(r.lost))
		if n := r.missing(h.w); n < len(r.lost) {
			gone = fmt.Sprintf("%d of %d objects gone", n, len(r.lost))
		}
		msg := fmt.Sprintf(" agent restarted (pid %d→%d): %s; plan makes them again ", r.from, r.to, gone)
		return h.st.banner.Render(fit(msg, h.width))
	}
	if l.err == nil {
		return h.st.dim.Render("connecting to the agent…")
	}
	pid := h.w.agent.PID
	wait := max(l.retryAt.Sub(h.now()).Round(time.Second), 0)
	retry := "reconnecting now"
	if wait > 0 {
		retry = "reconnecting in " + span(wait)
	}
	var msg string
	switch {
	case errors.Is(l.cause, ErrAgentStopped) && pid != 0:
		// Stopped on purpose: no outage to count down.
		msg = fmt.Sprintf(" agent stopped (pid %d) — waiting for a new one", pid)
	case errors.Is(l.cause, ErrAgentStopped):
		msg = " agent stopped — waiting for a new one"
	case errors.Is(l.cause, ErrAgentGone) && pid != 0:
		msg = fmt.Sprintf(" agent pid %d went away (connection closed) — %s", pid, retry)
	case errors.Is(l.cause, ErrAgentGone):
		msg = " agent went away (connection closed) — " + retry
	default:
		msg = " agent unreachable — " + retry
	}
	if h.w.synced {
		msg += "; as of " + h.w.lastUpdate.Format("15:04:05")
	}
	if !errors.Is(l.cause, ErrAgentStopped) && !errors.Is(l.cause, ErrAgentGone) {
		msg += " (" + termsafe.String(l.err.Error()) + ")" // the source's words for why
	}
	return h.st.banner.Render(fit(msg+" ", h.width))
}
