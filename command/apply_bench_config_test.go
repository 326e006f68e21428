package command

import "fmt"

// applyBenchConfig is what the apply benchmarks apply: a listener on addr
// (echoing nothing, accepting as many as come, as cmtime's server does)
// and n endpoints connected to it.
func applyBenchConfig(addr string, n int) string {
	return fmt.Sprintf(`listener "l" {
  address = %q
  port    = 7481
  accept {
    echo            = false
    max_connections = 0
  }
}

endpoint "e" {
  count   = %d
  address = listener.l.address
  port    = listener.l.port
}
`, addr, n)
}
