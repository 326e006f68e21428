package agent

import (
	"testing"
	"time"
)

func TestBackoffDoublesToMaxWithJitter(t *testing.T) {
	b := backoff{Min: 100 * time.Millisecond, Max: time.Second}
	low := func() float64 { return 0 }
	high := func() float64 { return 0.999999 }
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		w *= time.Millisecond
		if got := b.delay(i, low); got != w/2 {
			t.Errorf("attempt %d, lowest jitter: %v, want %v", i, got, w/2)
		}
		if got := b.delay(i, high); got < w-time.Microsecond || got > w {
			t.Errorf("attempt %d, highest jitter: %v, want about %v", i, got, w)
		}
	}
	if got := b.delay(1000, low); got != 500*time.Millisecond {
		t.Errorf("a large attempt count: %v, want the max's half", got)
	}
	spread := map[time.Duration]bool{}
	for i := 0; i < 50; i++ {
		spread[b.delay(3, jitter)] = true
	}
	if len(spread) < 10 {
		t.Errorf("jitter gave only %d distinct delays in 50 draws", len(spread))
	}
}
