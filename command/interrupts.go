package command

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts makes a command that holds the state lock stop on SIGINT,
// SIGTERM or SIGHUP (the terminal going away) rather than die of the
// signal: it releases the lock and its lock info, and apply records what
// completed. Before apply's walk, stopping changes nothing; the walk
// starts no new operation and finishes those in flight.
type interrupts struct {
	ch   chan os.Signal
	done chan struct{} // closed on the first signal

	mu     sync.Mutex
	notice func() // says what stopping means at this point
	closed bool
}

// interruptSignals are the signals a command stops on: Ctrl-C, a kill
// without -9, and a hang-up from a closed terminal or SSH session.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// watchInterrupts watches for the signals, saying on errw what stopping
// means; a second signal calls exit.
func watchInterrupts(errw io.Writer, exit func(code int)) *interrupts {
	in := &interrupts{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	in.notice = func() {
		fmt.Fprintln(errw, "\nInterrupt received. Stopping: nothing has been changed.")
	}
	signal.Notify(in.ch, interruptSignals...)
	go func() {
		if _, ok := <-in.ch; !ok {
			return
		}
		in.mu.Lock()
		notice := in.notice
		in.mu.Unlock()
		notice()
		close(in.done)
		// A second one exits at once, as Terraform's does: what was in
		// flight may take until its timeout (an endpoint's establish,
		// 30 s), and the state loses nothing by it, as after a kill -9.
		if _, ok := <-in.ch; ok {
			fmt.Fprintln(errw, "\nTwo interrupts received. Exiting immediately. The state records every change that\ncompleted (its journal is replayed by the next command); what was in flight\ngoes on in the agent, and the next plan shows it.")
			exit(1)
		}
		for range in.ch {
		}
	}()
	return in
}

// Done is closed once an interrupt was received.
func (in *interrupts) Done() <-chan struct{} { return in.done }

func (in *interrupts) interrupted() bool {
	select {
	case <-in.done:
		return true
	default:
		return false
	}
}

// setNotice replaces what is said when the interrupt comes.
func (in *interrupts) setNotice(f func()) {
	in.mu.Lock()
	in.notice = f
	in.mu.Unlock()
}

// stop restores the signals' default handling; idempotent.
func (in *interrupts) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return
	}
	in.closed = true
	signal.Stop(in.ch)
	close(in.ch)
}
