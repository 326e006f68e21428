package cmtime

import (
	"testing"
	"time"
)

// The table cmtime (rdma-core 44) prints, as seen in the Soft-RoCE VM.
const sample = `creating id
resolving address
step              total ms     max ms     min us  us / conn
create id    :       14.00       0.14       6.00      14.63
resolve addr :       31.50      15.09    9925.00     169.82
resolve route:       25.00       3.41    2591.00      52.12
create qp    :      189.00       4.01     119.00     316.02
connect      :     1205.00     347.95   57313.00    3655.94
disconnect   :      396.84     357.75   27150.00    3968.40
destroy      :        1.51       0.21      10.00      15.09
`

func TestParseSumsTheEstablishingSteps(t *testing.T) {
	r := Result{Steps: parse([]byte(sample))}
	if got, want := r.Establish(), 1464500*time.Microsecond; got != want {
		t.Fatalf("Establish() = %v, want %v (steps %v)", got, want, r.Steps)
	}
	if r.Steps["disconnect"] != 396840*time.Microsecond {
		t.Errorf("disconnect = %v", r.Steps["disconnect"])
	}
	if s := r.Summary(); s != "create id 14 ms, resolve addr 31 ms, resolve route 25 ms, create qp 189 ms, connect 1205 ms" {
		t.Errorf("Summary() = %q", s)
	}
}
