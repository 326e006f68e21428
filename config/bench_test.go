package config

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The three shapes of the performance goal, each at n and n/10
// endpoints. Every benchmark reads and parses real files from a temporary
// directory and runs the whole of Load. Each shape prints its time per
// load at both sizes and the growth ratio (linear growth: ≤ 12× for 10×).
//
//	go test -run='^$' -bench=Load -benchtime=5x ./config/

func countShape(n int) map[string]string {
	return map[string]string{"main.rdma.hcl": fmt.Sprintf(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
}
endpoint "c" {
  count   = %d
  address = listener.l.address
  port    = listener.l.port
  qp {
    max_send_wr = 32
  }
  connect {
    private_data = "c-${count.index}"
  }
}
`, n)}
}

func distinctShape(n int) map[string]string {
	files := map[string]string{"listener.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
}
`}
	var b [10]strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b[i%10], `
endpoint "e%d" {
  address = listener.l.address
  port    = listener.l.port
  qp {
    max_send_wr = 32
  }
  connect {
    private_data = "e%d"
  }
}
`, i, i)
	}
	for i := range b {
		files[fmt.Sprintf("endpoints%d.rdma.hcl", i)] = b[i].String()
	}
	return files
}

func chainShape(n int) map[string]string {
	var b strings.Builder
	b.WriteString(`
endpoint "e0" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
}
`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `
endpoint "e%d" {
  address = endpoint.e%d.address
  port    = endpoint.e%d.port
  qp {}
}
`, i, i-1, i-1)
	}
	return map[string]string{"main.rdma.hcl": b.String()}
}

func benchShape(b *testing.B, shape func(int) map[string]string, n int) {
	perLoad := map[int]time.Duration{}
	cpuLoad := map[int]time.Duration{} // user+system CPU of the process, GC included
	for _, size := range []int{n / 10, n} {
		dir := writeDir(b, shape(size))
		b.Run(fmt.Sprintf("n=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				cfg, diags := Load(dir, VarInputs{})
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				if len(cfg.Instances) < size {
					b.Fatalf("%d instances, want %d", len(cfg.Instances), size)
				}
			}
			perLoad[size] = b.Elapsed() / time.Duration(b.N)
			cpuLoad[size] = (cpuTime() - cpu0) / time.Duration(b.N)
			b.ReportMetric(perLoad[size].Seconds(), "s/load")
			b.ReportMetric(cpuLoad[size].Seconds(), "cpu-s/load")
		})
	}
	small, big := perLoad[n/10], perLoad[n]
	if small > 0 && big > 0 {
		fmt.Printf("%s: %d endpoints %v (cpu %v), %d endpoints %v (cpu %v), ratio %.1f× wall, %.1f× cpu for 10× (goal ≤ 12×, < 0.3 s)\n",
			b.Name(), n/10, small.Round(time.Microsecond), cpuLoad[n/10].Round(time.Microsecond),
			n, big.Round(time.Microsecond), cpuLoad[n].Round(time.Microsecond),
			float64(big)/float64(small), float64(cpuLoad[n])/float64(cpuLoad[n/10]))
	}
}

func BenchmarkLoadCount10000(b *testing.B)    { benchShape(b, countShape, 10000) }
func BenchmarkLoadDistinct10000(b *testing.B) { benchShape(b, distinctShape, 10000) }
func BenchmarkLoadChain1000(b *testing.B)     { benchShape(b, chainShape, 1000) }

// TestBenchShapesLoad keeps the benchmark inputs honest: each shape loads
// without diagnostics into the expected number of instances.
func TestBenchShapesLoad(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"count": countShape(50), "distinct": distinctShape(50), "chain": chainShape(50),
	} {
		cfg, diags := Load(writeDir(t, files), VarInputs{})
		if len(diags) > 0 {
			t.Fatalf("%s: %v", name, diags)
		}
		if len(cfg.Instances) < 50 {
			t.Errorf("%s: %d instances", name, len(cfg.Instances))
		}
	}
}
