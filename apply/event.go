package apply

import (
	"fmt"
	"strings"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// Event is one progress report of an apply, as Terraform's UI hooks carry
// them: the start of an operation on an object, a "still running" tick,
// or its completion. Message is the human progress line.
type Event struct {
	Type    EventType
	Addr    addrs.Instance
	Deposed string // the deposed object's key, when the operation is on one
	Action  string // "create", "update", "delete" or "import"
	// Elapsed is the operation's time so far (Progress, Complete).
	Elapsed time.Duration
	// IDKey and IDValue name the object as the bracketed part of the
	// line does ("qp_num", "17"); empty when the line names none.
	IDKey, IDValue string
	Message        string
}

// EventType is what an Event reports.
type EventType int

const (
	EventStart EventType = iota
	EventProgress
	EventComplete
	// EventCancelled: the operation was undone by an interrupt before it
	// completed (ErrCancelled).
	EventCancelled
	// EventErrored: the operation failed (its error is in the report).
	// It has no Message: Terraform prints no progress line for it.
	EventErrored
)

// emit writes ev's line to Progress and hands ev to Events.
func (e *executor) emit(ev Event) {
	e.outLock.Lock()
	defer e.outLock.Unlock()
	if ev.Message != "" {
		fmt.Fprintln(e.Progress, termsafe.Text(ev.Message)) // it may hold the agent's words
	}
	if e.Events != nil {
		e.Events(ev)
	}
}

// splitIdentity splits "qp_num=17" into its key and value.
func splitIdentity(id string) (string, string) {
	k, v, _ := strings.Cut(id, "=")
	return k, v
}
