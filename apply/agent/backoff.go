package agent

import (
	"math/rand/v2"
	"time"
)

// backoff is a reconnect policy: exponential back-off from Min, doubling
// per failed attempt up to Max, with "equal jitter" (half the delay fixed,
// half random) so that many endpoints that lost the same peer do not
// reconnect in lock-step.
type backoff struct {
	Min, Max time.Duration
}

// delay is the wait before reconnect attempt number attempt (from 0).
// rnd returns a value in [0, 1); tests pass a fixed one.
func (b backoff) delay(attempt int, rnd func() float64) time.Duration {
	d := b.Min
	if d <= 0 {
		d = time.Millisecond
	}
	max := b.Max
	if max < d {
		max = d
	}
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	return half + time.Duration(rnd()*float64(d-half))
}

func jitter() float64 { return rand.Float64() }
