package apply

import (
	"fmt"
	"sync"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
)

// DefaultStillInterval is how often, as Terraform does, apply says that an
// operation is still running: "endpoint.e: Still creating... [10s elapsed]".
const DefaultStillInterval = 10 * time.Second

// still says every StillInterval that the operation on label is still
// running, until the returned stop is called. stop may be called more than
// once; once it returns, nothing more is said, so the operation's last
// line comes after its last "Still" line.
func (e *executor) still(a addrs.Instance, deposed, label, action, verb string) (stop func()) {
	interval := e.StillInterval
	if interval <= 0 {
		interval = DefaultStillInterval
	}
	start := time.Now()
	var mu sync.Mutex
	stopped := false
	mu.Lock() // the first tick waits until t is set
	defer mu.Unlock()
	var t *time.Timer
	t = time.AfterFunc(interval, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		d := time.Since(start)
		e.emit(Event{Type: EventProgress, Addr: a, Deposed: deposed, Action: action, Elapsed: d,
			Message: fmt.Sprintf("%s: Still %s... [%s elapsed]", label, verb, d.Truncate(time.Second))})
		t.Reset(interval)
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}
