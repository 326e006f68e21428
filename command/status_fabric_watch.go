package command

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strings"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// interruptContext ends on Ctrl-C, SIGTERM or SIGHUP: status -watch of a
// fabric then exits 0.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), interruptSignals...)
}

// watchedHost is what the fabric's watch knows of a host: its objects as
// last heard of (kept while it does not answer, for its links), whether
// it answers, and what was printed of its objects.
type watchedHost struct {
	objects map[string]*pb.Object
	down    string // why it does not answer; "" when it does
	printed watchFilter
}

// watchFabric prints, after the table, a line each time an object's
// status or last event changes on any host, a host stops or starts
// answering, or a link's status changes, until ctx ends. Each host is
// watched on its own (hostWatcher): one that stops answering is said to
// within the heartbeat's bound, its links become unknown, and the others
// go on.
func watchFabric(ctx context.Context, hosts []*statusHost, names client.Names, w io.Writer, beat heartbeat) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan hostEvent)
	state := map[string]*watchedHost{}
	width := len("link")
	for _, h := range hosts {
		wh := &watchedHost{objects: map[string]*pb.Object{}, printed: watchFilter{}}
		for _, o := range h.Objects {
			wh.objects[o.Address] = o
			wh.printed.changed(&pb.Change{Object: o})
		}
		if h.Err != nil {
			wh.down = h.Err.Error()
		}
		state[h.Key] = wh
		width = max(width, len(hostLabel(h.Key)))
		hw := &hostWatcher{host: h, names: names, beat: beat, events: events}
		c := h.client
		h.client = nil // the watcher closes it
		go hw.run(ctx, c)
	}
	links := linkStatuses(state)
	line := func(host, text string) {
		fmt.Fprintf(w, "%s  %-*s  %s\n", time.Now().Format("15:04:05.000"), width, host, text)
	}
	for {
		var ev hostEvent
		select {
		case <-ctx.Done():
			return
		case ev = <-events:
		}
		dirty := handleHostEvent(state[ev.host], ev, line)
		// Probes change objects every interval on every host: the links
		// are matched again once the events waiting are handled, and only
		// if a status, last event or host changed.
	drain:
		for range 1000 {
			select {
			case ev = <-events:
				dirty = handleHostEvent(state[ev.host], ev, line) || dirty
			default:
				break drain
			}
		}
		if !dirty {
			continue
		}
		now := linkStatuses(state)
		for _, k := range sortedKeys(now) {
			if links[k] != now[k] {
				line("link", now[k])
			}
		}
		for k, text := range links {
			if _, ok := now[k]; !ok {
				line("link", strings.SplitN(text, "  ", 2)[0]+"  gone")
			}
		}
		links = now
	}
}

// handleHostEvent records ev in wh, printing what it says that is new
// with line, and reports whether a link may have changed.
func handleHostEvent(wh *watchedHost, ev hostEvent, line func(host, text string)) bool {
	label := hostLabel(ev.host)
	say := func(text string) { line(label, text) }
	switch {
	case ev.down != nil:
		if wh.down == "" {
			say("unreachable: " + termsafe.Text(ev.down.Error()))
		}
		changed := wh.down != ev.down.Error()
		wh.down = ev.down.Error()
		return changed
	case ev.isSnap:
		back := wh.down != ""
		if back {
			say("answers again")
			wh.down = ""
		}
		// What changed while it was not watched is a change too.
		var changes []*pb.Change
		in := map[string]bool{}
		for _, o := range ev.snapshot {
			in[o.Address] = true
			changes = append(changes, &pb.Change{Object: o})
		}
		for addr := range wh.objects {
			if !in[addr] {
				changes = append(changes, &pb.Change{Object: &pb.Object{Address: addr}, Deleted: true})
			}
		}
		sort.SliceStable(changes, func(i, j int) bool { return statusOrder(changes[i].Object, changes[j].Object) })
		wh.objects = map[string]*pb.Object{}
		return wh.apply(changes, say) || back
	}
	return wh.apply(ev.changes, say)
}

// apply records changes and prints those that say something new,
// reporting whether it printed any.
func (wh *watchedHost) apply(changes []*pb.Change, say func(string)) bool {
	printed := false
	for _, ch := range changes {
		o := ch.Object
		if ch.Deleted {
			delete(wh.objects, o.Address)
		} else {
			wh.objects[o.Address] = o
		}
		if !wh.printed.changed(ch) {
			continue
		}
		status := lowerWord(o.Status.String())
		if ch.Deleted {
			status = "deleted"
		}
		say(fmt.Sprintf("%-28s %-13s %s", termsafe.String(o.Address), status, termsafe.String(o.LastEvent)))
		printed = true
	}
	return printed
}

// linkStatuses are the links of what the hosts hold, each as the line the
// watch prints of it, keyed by its endpoint.
func linkStatuses(state map[string]*watchedHost) map[string]string {
	var objects []hostObject
	down := map[string]string{}
	for k, wh := range state {
		for _, o := range wh.objects {
			objects = append(objects, hostObject{Host: k, Object: o})
		}
		if wh.down != "" {
			down[k] = wh.down
		}
	}
	out := map[string]string{}
	for _, l := range matchLinks(objects, down) {
		text := l.Endpoint.endText() + " ⇄ " + l.farEnd() + "  " + l.Status
		if l.Reason != "" {
			text += " (" + l.Reason + ")"
		}
		out[l.Endpoint.Host+"\x00"+l.Endpoint.Object.Address] = termsafe.Text(text)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
