//go:build !integration

package command

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkApplyCLIMem1000 runs `rdmaform apply -auto-approve` and
// `destroy -auto-approve` of a listener and 1,000 endpoints in this
// process, against a fabric that answers at once, with the local state on
// disk: the CLI's own cost per apply (configuration, plan, its printing,
// the walk, the journal, progress lines, the final state), which shares
// the host's CPUs with the agent in a real apply. It reports allocations
// per apply; profile it with -cpuprofile and -memprofile.
//
//	go test -run '^$' -bench ApplyCLIMem1000 -benchmem .
func BenchmarkApplyCLIMem1000(b *testing.B) {
	meta := withFabric(b, newMemFabric())
	b.Chdir(".")
	dir := b.TempDir()
	cfg := applyBenchConfig("10.77.0.1", 1000)
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	cli := func(args ...string) {
		var errb strings.Builder
		if code := run(append([]string{"-chdir=" + dir}, args...), meta.streams(strings.NewReader(""), io.Discard, &errb)); code != 0 {
			b.Fatalf("rdmaform %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cli("apply", "-auto-approve", "-no-color")
		b.StopTimer()
		cli("destroy", "-auto-approve", "-no-color")
		b.StartTimer()
	}
}
