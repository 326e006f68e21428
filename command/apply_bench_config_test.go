package command

import "fmt"

// applyBenchConfig is what the apply benchmarks apply: a listener on addr
// (echoing nothing) and 1,000 endpoints connected to it.
func applyBenchConfig(addr string) string {
	return fmt.Sprintf(`listener "l" {
  address = %q
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
`, addr)
}
