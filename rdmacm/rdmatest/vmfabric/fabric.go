package vmfabric

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Spec says what fabric to boot.
type Spec struct {
	Hosts   int   // guests on the wire, at least 1
	Forward []int // guest TCP ports each guest gets forwarded from 127.0.0.1

	CPUs  int // vCPUs per guest; default 1
	MemMB int // memory per guest; default 1024

	// BootTimeout bounds each guest's boot; default 5 minutes (several TCG
	// guests on a busy two-core host take 30 s and more).
	BootTimeout time.Duration

	// Tree is the working tree shared into the guests (its scripts/ boot
	// them); default the nearest directory above the working directory
	// holding go.mod and scripts/vm-guest.
	Tree string
	// Cache holds the image scripts/vm-image builds; default
	// $RDMAFORM_VM_CACHE, else Tree/.cache/vm.
	Cache string
}

// Fabric is a set of running guests on one wire. Close it.
type Fabric struct {
	spec  Spec
	dir   string
	hub   *hub
	hosts []*Host
	once  sync.Once
}

// Boot boots the fabric for a test and closes it when the test ends. It
// fails the test, never skips it, when the guests cannot start.
func Boot(t testing.TB, spec Spec) *Fabric {
	t.Helper()
	start := time.Now()
	f, err := New(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, h := range f.hosts {
				t.Logf("%s: serial console (%s), last lines:\n%s", h.name, h.ConsoleLog(), tail(h.ConsoleLog(), 30))
			}
		}
		f.Close()
	})
	t.Logf("vmfabric: %d guests booted in %.1f s", spec.Hosts, time.Since(start).Seconds())
	return f
}

// New boots the fabric's guests concurrently and waits until each has its
// wire and Soft-RoCE device up. On failure nothing is left running.
func New(ctx context.Context, spec Spec) (f *Fabric, err error) {
	if spec.Hosts < 1 || spec.Hosts > 250 {
		return nil, fmt.Errorf("vmfabric: %d hosts asked; give between 1 and 250", spec.Hosts)
	}
	if spec.CPUs == 0 {
		spec.CPUs = 1
	}
	if spec.MemMB == 0 {
		spec.MemMB = 1024
	}
	if spec.BootTimeout == 0 {
		spec.BootTimeout = 5 * time.Minute
	}
	if spec.Tree == "" {
		if spec.Tree, err = findTree(); err != nil {
			return nil, err
		}
	}
	if spec.Cache == "" {
		spec.Cache = os.Getenv("RDMAFORM_VM_CACHE")
	}
	if spec.Cache == "" {
		spec.Cache = filepath.Join(spec.Tree, ".cache", "vm")
	}
	if err := buildImage(spec); err != nil {
		return nil, err
	}

	// Short path: unix socket names are limited to 108 bytes.
	dir, err := os.MkdirTemp("", "vmfabric")
	if err != nil {
		return nil, fmt.Errorf("vmfabric: %w", err)
	}
	f = &Fabric{spec: spec, dir: dir}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()

	var ports []string
	for i := range spec.Hosts {
		h := &Host{
			f:       f,
			index:   i,
			name:    fmt.Sprintf("host%d", i+1),
			addr:    fmt.Sprintf("10.77.1.%d", i+1),
			dir:     filepath.Join(dir, fmt.Sprintf("host%d", i+1)),
			forward: map[int]int{},
		}
		h.wire = filepath.Join(dir, h.name+".wire")
		for _, p := range spec.Forward {
			if h.forward[p], err = freePort(); err != nil {
				return f, fmt.Errorf("vmfabric: no free port on 127.0.0.1 to forward to %s:%d: %w", h.name, p, err)
			}
		}
		f.hosts = append(f.hosts, h)
		ports = append(ports, h.wire)
	}
	if f.hub, err = newHub(filepath.Join(dir, "hub"), ports); err != nil {
		return f, fmt.Errorf("vmfabric: the wire's hub: %w", err)
	}

	errs := make([]error, len(f.hosts))
	var wg sync.WaitGroup
	for i, h := range f.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.Boot(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return f, err
	}
	return f, nil
}

// Host returns guest i, from 0.
func (f *Fabric) Host(i int) *Host { return f.hosts[i] }

// Hosts returns every guest.
func (f *Fabric) Hosts() []*Host { return f.hosts }

// Close kills every guest and removes their files. It may be called again.
func (f *Fabric) Close() {
	f.once.Do(func() {
		for _, h := range f.hosts {
			_ = h.PowerOff()
		}
		if f.hub != nil {
			f.hub.Close()
		}
		os.RemoveAll(f.dir)
	})
}

// findTree finds the working tree above the working directory.
func findTree() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vmfabric: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, "go.mod")) && fileExists(filepath.Join(d, "scripts", "vm-guest")) {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return "", fmt.Errorf("vmfabric: no working tree (go.mod and scripts/vm-guest) above %s; run the test from inside the rdmaform repository or set Spec.Tree", wd)
		}
	}
}

// buildImage runs scripts/vm-image, which builds the kernel and initramfs
// when they are missing or stale and is a quick no-op otherwise.
func buildImage(spec Spec) error {
	cmd := exec.Command(filepath.Join(spec.Tree, "scripts", "vm-image"), "--quiet")
	cmd.Env = append(os.Environ(), "RDMAFORM_VM_CACHE="+spec.Cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("vmfabric: scripts/vm-image could not build the VM image in %s (%v):\n%s", spec.Cache, err, out)
	}
	return nil
}

// freePort returns a TCP port of 127.0.0.1 free at the time of asking.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tail returns the last n lines of a file, or why it cannot.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
