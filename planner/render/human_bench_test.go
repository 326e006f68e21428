package render

import (
	"context"
	"io"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
)

// BenchmarkHumanCreate1000 renders the plan apply prints before creating
// a listener and 1,000 endpoints.
func BenchmarkHumanCreate1000(b *testing.B) {
	src := `
listener "l" {
  address = "10.77.0.1"
  port    = 7481
}

endpoint "e" {
  count   = 1000
  address = listener.l.address
  port    = listener.l.port
  qp {
    max_send_wr = 32
  }
}
`
	p := planOfSource(b, src)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Human(io.Discard, p, false)
	}
}

// planOfSource is the plan that creates what src declares.
func planOfSource(t testing.TB, src string) *planner.Plan {
	t.Helper()
	cfg, diags := config.NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Make(context.Background(), cfg, nil, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}
