package command

import (
	"fmt"
	"os"
)

// applyBenchConfig is what the apply benchmarks apply: a listener on addr
// (echoing nothing, accepting as many as come, as cmtime's server does)
// and n endpoints connected to it. Their QPs are the agent's default (16
// work requests each way, 64 bytes inline); RDMAFORM_BENCH_QP=cmtime
// declares cmtime's instead (one work request and one SGE each way, no
// inline data), to tell the cost of the queues' size from the rest.
func applyBenchConfig(addr string, n int) string {
	qp := ""
	if os.Getenv("RDMAFORM_BENCH_QP") == "cmtime" {
		qp = `
  qp {
    max_send_wr     = 1
    max_recv_wr     = 1
    max_inline_data = 0
  }
`
	}
	return fmt.Sprintf(`listener "l" {
  address = %q
  port    = 7481
  accept {
    echo            = false
    max_connections = 0
  }
%s}

endpoint "e" {
  count   = %d
  address = listener.l.address
  port    = listener.l.port
%s}
`, addr, qp, n, qp)
}
