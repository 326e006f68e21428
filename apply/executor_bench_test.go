package apply

import (
	"context"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

const thousand = `
listener "l" {
  address = "10.77.0.1"
  port    = 7481
  accept {
    echo = false
  }
}

endpoint "e" {
  count   = 1000
  address = listener.l.address
  port    = listener.l.port
}
`

// BenchmarkApplyFake1000 applies and destroys a listener and 1,000
// endpoints against a fabric that answers at once, with the local state:
// apply's own cost per object (specs, state encoding, journal, progress).
func BenchmarkApplyFake1000(b *testing.B) {
	cfg := load(b, thousand)
	for i := 0; i < b.N; i++ {
		e := newEnv(b)
		e.out.onLine = nil
		_, r := e.run(context.Background(), cfg, planner.Options{}, 10)
		if r.Failed() || r.Added != 1001 {
			b.Fatalf("apply: %+v", r)
		}
		_, r = e.run(context.Background(), cfg, planner.Options{Destroy: true}, 10)
		if r.Failed() || r.Destroyed != 1001 {
			b.Fatalf("destroy: %+v", r)
		}
	}
}
