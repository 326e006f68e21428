package command

import "fmt"

// applyBenchConfig is what the apply benchmarks apply: a listener on addr
// (echoing nothing) and 1,000 endpoints connected to it.
func applyBenchConfig(addr string) string { return applyBenchConfigN(addr, 1000) }

// applyBenchConfigN is applyBenchConfig with n endpoints.
func applyBenchConfigN(addr string, n int) string {
	return fmt.Sprintf(`listener "l" {
  address = %q
  port    = 7481
  accept {
    echo = false
  }
}

endpoint "e" {
  count   = %d
  address = listener.l.address
  port    = listener.l.port
}
`, addr, n)
}
