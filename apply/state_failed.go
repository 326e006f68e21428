package apply

import (
	"errors"

	"github.com/rdmaform/rdmaform/state"
)

// ErrStateFailed is what an operation's error wraps when the state could
// not record a change (the backend went away: etcd stopped, the disk
// filled): apply then starts no further operation, as once the fabric is
// gone, since every one would make something the state cannot record.
var ErrStateFailed = errors.New("the state could not record a change")

// failingRecorder marks the errors of Record as ErrStateFailed (Submit's,
// used only before the walk, fail the apply there).
type failingRecorder struct{ state.Recorder }

func (r failingRecorder) Record(c state.Change) error {
	if err := r.Recorder.Record(c); err != nil {
		return stateFailed{err}
	}
	return nil
}

type stateFailed struct{ err error }

func (e stateFailed) Error() string   { return e.err.Error() }
func (e stateFailed) Unwrap() []error { return []error{e.err, ErrStateFailed} }
