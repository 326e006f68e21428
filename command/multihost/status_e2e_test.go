//go:build integration

package multihost_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// What the CLI's status -json says of a fabric: the parts the test reads.
type statusDoc struct {
	Hosts []struct {
		Host      string `json:"host"`
		Reachable bool   `json:"reachable"`
		Error     string `json:"error"`
	} `json:"hosts"`
	Links []struct {
		Status   string   `json:"status"`
		Reason   string   `json:"reason"`
		RTTNanos int64    `json:"rttNs"`
		Endpoint linkEnd  `json:"endpoint"`
		Accepted *linkEnd `json:"accepted"`
	} `json:"links"`
}

type linkEnd struct {
	Host        string `json:"host"`
	Address     string `json:"address"`
	Listener    string `json:"listener"`
	Status      string `json:"status"`
	QPNum       uint32 `json:"qpNum"`
	RemoteQPNum uint32 `json:"remoteQpNum"`
}

// storageKey is the storage host an endpoint of the fabric reaches:
// endpoint.blocks["s1-0"] -> s1.
var storageKey = regexp.MustCompile(`^endpoint\.blocks\["(s[12])-[012]"\]$`)

// statusLinks waits until the CLI's status -json, with the
// configuration's agent blocks, shows the six links across hosts, each
// established with a probe round trip, its ends named with their hosts,
// and each end's QP the other's remote QP.
func (e *e2e) statusLinks(dir, when string) {
	e.t.Helper()
	var last statusDoc
	e.waitFor("status -json to show six links established across hosts "+when, func() (bool, string) {
		code, out, errs := e.cli(dir, "status", "-json")
		if code != 0 {
			return false, fmt.Sprintf("status -json: exit %d\n%s%s", code, out, errs)
		}
		var doc statusDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			return false, fmt.Sprintf("status -json: %v\n%s", err, out)
		}
		last = doc
		var bad []string
		accepted := map[string]bool{}
		for _, l := range doc.Links {
			ep, acc := l.Endpoint, l.Accepted
			m := storageKey.FindStringSubmatch(ep.Address)
			switch {
			case m == nil:
				bad = append(bad, "a link of an unknown endpoint "+ep.Address)
			case l.Status != "established" || l.RTTNanos <= 0:
				bad = append(bad, fmt.Sprintf("%s: %s, rtt %d ns (%s)", ep.Address, l.Status, l.RTTNanos, l.Reason))
			case ep.Host != "agent.compute" || acc == nil ||
				acc.Host != fmt.Sprintf(`agent.storage[%q]`, m[1]) || acc.Listener != fmt.Sprintf(`listener.blocks[%q]`, m[1]):
				bad = append(bad, fmt.Sprintf("%s: ends %+v and %+v", ep.Address, ep, acc))
			case ep.QPNum == 0 || ep.RemoteQPNum != acc.QPNum || acc.RemoteQPNum != ep.QPNum:
				bad = append(bad, fmt.Sprintf("%s: QPs not crossed: endpoint %d (remote %d), accepted %d (remote %d)",
					ep.Address, ep.QPNum, ep.RemoteQPNum, acc.QPNum, acc.RemoteQPNum))
			case accepted[acc.Host+" "+acc.Address]:
				bad = append(bad, fmt.Sprintf("%s: %s %s is another link's too", ep.Address, acc.Host, acc.Address))
			default:
				accepted[acc.Host+" "+acc.Address] = true
			}
		}
		return len(doc.Links) == 6 && len(bad) == 0, fmt.Sprintf("%d links; not as wanted: %v", len(doc.Links), bad)
	})
	for _, l := range last.Links {
		e.t.Logf("status -json %s: %s (%s) qp %d, remote %d ⇄ %s (%s) qp %d, remote %d: %s, rtt %v", when,
			l.Endpoint.Address, l.Endpoint.Host, l.Endpoint.QPNum, l.Endpoint.RemoteQPNum,
			l.Accepted.Address, l.Accepted.Host, l.Accepted.QPNum, l.Accepted.RemoteQPNum,
			l.Status, time.Duration(l.RTTNanos))
	}
}

// watchLine is a line status -watch printed, and when the test read it.
type watchLine struct {
	at   time.Time
	text string
}

// statusWatch is the CLI's status -watch running on the host.
type statusWatch struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}

	mu    sync.Mutex
	lines []watchLine
}

// startWatch runs status -watch in dir and waits for its table, after
// which it prints a line for each change.
func (e *e2e) startWatch(dir string) *statusWatch {
	e.t.Helper()
	w := &statusWatch{done: make(chan struct{})}
	w.cmd = exec.CommandContext(e.ctx, e.bin, "status", "-watch", "-no-color")
	w.cmd.Dir = dir
	w.cmd.Stderr = &w.stderr
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		e.t.Fatalf("status -watch: %v", err)
	}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, watchLine{at: time.Now(), text: sc.Text()})
			w.mu.Unlock()
		}
	}()
	e.t.Cleanup(func() { _ = w.cmd.Process.Kill(); <-w.done; _ = w.cmd.Wait() })
	w.waitLine(e, 0, "status -watch's table with 3 hosts reachable", func(l string) bool {
		return strings.HasPrefix(l, "3 hosts: 3 reachable")
	})
	return w
}

// next is the index of the next line the watch prints.
func (w *statusWatch) next() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lines)
}

// waitLine waits for a line from index from on that ok accepts, and
// returns it with its index.
func (w *statusWatch) waitLine(e *e2e, from int, what string, ok func(string) bool) (watchLine, int) {
	e.t.Helper()
	var found watchLine
	at := -1
	e.waitFor(what, func() (bool, string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i := from; i < len(w.lines); i++ {
			if ok(w.lines[i].text) {
				found, at = w.lines[i], i
				return true, ""
			}
		}
		return false, w.tail(from)
	})
	return found, at
}

// tail is what the watch printed from index from on (the last 40 lines),
// with its errors; w.mu held.
func (w *statusWatch) tail(from int) string {
	var b strings.Builder
	if len(w.lines)-from > 40 {
		from = len(w.lines) - 40
	}
	for _, l := range w.lines[from:] {
		b.WriteString(l.text + "\n")
	}
	select {
	case <-w.done:
		fmt.Fprintf(&b, "(status -watch ended: %v; stderr: %s)", w.cmd.ProcessState, w.stderr.String())
	default:
	}
	return "status -watch printed:\n" + b.String()
}

// hostDown waits for the watch's line saying host is unreachable, from
// index from on, then for the lines of its three links unknown; it
// returns the first line.
func (w *statusWatch) hostDown(e *e2e, from int, h *host) watchLine {
	e.t.Helper()
	line, at := w.waitLine(e, from, "status -watch to say "+h.key+" is unreachable", func(l string) bool {
		return strings.Contains(l, "  "+h.key+"  unreachable: ")
	})
	storage := strings.TrimSuffix(strings.TrimPrefix(h.key, `agent.storage["`), `"]`)
	for i := range 3 {
		ep := fmt.Sprintf(`endpoint.blocks["%s-%d"]`, storage, i)
		w.waitLine(e, at, "status -watch to say the link of "+ep+" is unknown", func(l string) bool {
			return strings.Contains(l, "  link ") && strings.Contains(l, ep+" (agent.compute) ⇄ ") &&
				strings.Contains(l, "  unknown ("+h.key+" does not answer: ")
		})
	}
	return line
}

// stop ends the watch as Ctrl-C does: it exits 0.
func (w *statusWatch) stop(e *e2e) {
	e.t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGINT)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	select {
	case <-w.done:
	case <-ctx.Done():
		e.t.Fatalf("status -watch did not end within a minute of SIGINT")
	}
	if err := w.cmd.Wait(); err != nil {
		e.t.Errorf("status -watch after SIGINT: %v; stderr: %s", err, w.stderr.String())
	}
}
