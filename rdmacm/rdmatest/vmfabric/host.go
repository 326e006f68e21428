package vmfabric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Host is one guest of a fabric. It keeps its wire, addresses and
// forwarded ports across PowerOff and Boot.
type Host struct {
	f       *Fabric
	index   int
	name    string
	addr    string
	dir     string
	wire    string      // its qemu's end of the wire (a unix socket)
	forward map[int]int // guest port -> 127.0.0.1 port

	mu     sync.Mutex
	qemu   *exec.Cmd
	exited chan struct{} // closed when this boot's qemu has exited
	boot   int           // counts boots: a job belongs to one
	jobs   int
	frozen bool
}

// Name is host1, host2, ...: also the guest's host name.
func (h *Host) Name() string { return h.name }

// Addr is the guest's address on the wire, 10.77.1.(i+1), served by its
// Soft-RoCE device rxe0.
func (h *Host) Addr() string { return h.addr }

// Device is the guest's Soft-RoCE device on the wire.
func (h *Host) Device() string { return "rxe0" }

// Forwarded returns the 127.0.0.1:PORT of the host that reaches the
// guest's TCP port guestPort (one of Spec.Forward), or "" if it is not
// forwarded.
func (h *Host) Forwarded(guestPort int) string {
	p, ok := h.forward[guestPort]
	if !ok {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// ConsoleLog is the file holding the guest's serial console of its latest
// boot: kernel messages and its set-up.
func (h *Host) ConsoleLog() string { return filepath.Join(h.dir, "console.log") }

func (h *Host) ctl() string { return filepath.Join(h.dir, "ctl") }

// Running tells whether the guest's qemu runs.
func (h *Host) Running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running()
}

func (h *Host) running() bool {
	if h.exited == nil {
		return false
	}
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// PowerOff pulls the plug: the guest's qemu is killed, nothing in the
// guest runs another instruction. Its jobs are lost. Powering off a guest
// that is off does nothing.
func (h *Host) PowerOff() error {
	h.mu.Lock()
	q, exited := h.qemu, h.exited
	h.qemu = nil
	h.mu.Unlock()
	if q == nil {
		return nil
	}
	_ = q.Process.Kill() // a stopped process dies too
	<-exited
	h.thawed()
	return nil
}

// Freeze stops the guest where it is, a pulled cable as seen from outside:
// its qemu gets SIGSTOP, so nothing in the guest runs and nothing answers
// on its forwarded ports (the host's kernel still accepts connections to
// them and takes their bytes, but nothing answers, resets or closes them),
// and the wire no longer carries frames to it. Thaw resumes it.
func (h *Host) Freeze() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running() || h.qemu == nil {
		return fmt.Errorf("vmfabric: %s is off; Boot it before freezing it", h.name)
	}
	if h.frozen {
		return nil
	}
	// Muted first: a stopped guest reads no frame, and the hub would wait
	// on its full socket.
	h.f.hub.mute(h.wire, true)
	if err := h.qemu.Process.Signal(syscall.SIGSTOP); err != nil {
		h.f.hub.mute(h.wire, false)
		return fmt.Errorf("vmfabric: freezing %s (SIGSTOP to its qemu): %w", h.name, err)
	}
	h.frozen = true
	return nil
}

// Thaw resumes a frozen guest: it runs on from where it stopped, and the
// wire carries frames to it again. Thawing a guest that is not frozen does
// nothing.
func (h *Host) Thaw() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.frozen || !h.running() || h.qemu == nil {
		return nil
	}
	if err := h.qemu.Process.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("vmfabric: thawing %s (SIGCONT to its qemu): %w", h.name, err)
	}
	h.f.hub.mute(h.wire, false)
	h.frozen = false
	return nil
}

// Frozen tells whether the guest is frozen.
func (h *Host) Frozen() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.frozen && h.running()
}

func (h *Host) thawed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.frozen = false
	if h.f.hub != nil {
		h.f.hub.mute(h.wire, false)
	}
}

// Boot starts the guest (again) on its wire, with its addresses and
// forwarded ports, and waits until its network and Soft-RoCE device are up.
func (h *Host) Boot(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running() {
		return fmt.Errorf("vmfabric: %s is already running; PowerOff it first", h.name)
	}
	if err := h.prepare(); err != nil {
		return fmt.Errorf("vmfabric: preparing %s: %w", h.name, err)
	}
	qlog, err := os.Create(filepath.Join(h.dir, "qemu.log"))
	if err != nil {
		return fmt.Errorf("vmfabric: %w", err)
	}
	defer qlog.Close()
	cmd := exec.Command("qemu-system-x86_64", h.qemuArgs()...)
	cmd.Stdout, cmd.Stderr = qlog, qlog
	// qemu dies with the test process, whatever kills it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("vmfabric: starting qemu for %s: %w (is qemu-system-x86 installed? scripts/vm-image installs it)", h.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	h.qemu, h.exited = cmd, exited
	h.boot++

	ctx, cancel := context.WithTimeout(ctx, h.f.spec.BootTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !fileExists(filepath.Join(h.ctl(), "ready")) {
		select {
		case <-exited:
			h.qemu = nil
			return fmt.Errorf("vmfabric: %s stopped before it was ready (%s)\nqemu: %s\nserial console (%s):\n%s",
				h.name, cmd.ProcessState, tail(qlog.Name(), 10), h.ConsoleLog(), tail(h.ConsoleLog(), 20))
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			h.qemu = nil
			return fmt.Errorf("vmfabric: %s was not ready within %s (%v); serial console (%s):\n%s",
				h.name, h.f.spec.BootTimeout, ctx.Err(), h.ConsoleLog(), tail(h.ConsoleLog(), 20))
		case <-tick.C:
		}
	}
	return nil
}

// prepare writes the control share the guest side (scripts/vm-guest) reads;
// a new boot starts with no jobs.
func (h *Host) prepare() error {
	ctl := h.ctl()
	if err := os.RemoveAll(ctl); err != nil {
		return err
	}
	for _, d := range []string{filepath.Join(ctl, "tree"), filepath.Join(ctl, "jobs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// qemu binds its end of the wire anew; a killed qemu left the old one.
	if err := os.Remove(h.wire); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	guest, err := os.ReadFile(filepath.Join(h.f.spec.Tree, "scripts", "vm-guest"))
	if err != nil {
		return err
	}
	net := fmt.Sprintf("wire %s %s/24 rxe0\n", h.mac(1), h.addr)
	if len(h.forward) > 0 {
		net += fmt.Sprintf("user %s 10.0.2.15/24\n", h.mac(2))
	}
	files := map[string]string{
		"guest.sh":  string(guest),
		"repo":      "/run/rdmaform-vm/tree\n", // scripts/vm-image's /init mounts the tree there
		"repo-path": h.f.spec.Tree + "\n",
		"hostname":  h.name + "\n",
		"net":       net,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(ctl, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mac is the guest's NIC n: 1 on the wire, 2 on the user network.
func (h *Host) mac(n int) string {
	return fmt.Sprintf("52:54:00:77:%02x:%02x", n, h.index+1)
}

// qemuArgs mirror scripts/vm-run's (the same image, shares and speed-ups),
// with NICs in place of its console.
func (h *Host) qemuArgs() []string {
	s := h.f.spec
	esc := func(p string) string { return strings.ReplaceAll(p, ",", ",,") }
	accel := []string{"-accel", "tcg,thread=multi", "-cpu", "max"}
	if hasVirtualization() {
		accel = []string{"-accel", "kvm", "-cpu", "host"}
	}
	args := []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-name", h.name,
		"-bios", "/usr/share/qemu/qboot.rom",
	}
	args = append(args, accel...)
	args = append(args,
		"-smp", strconv.Itoa(s.CPUs), "-m", strconv.Itoa(s.MemMB),
		"-kernel", filepath.Join(s.Cache, "vmlinux"), "-initrd", filepath.Join(s.Cache, "initramfs.cpio"),
		"-append", "console=ttyS0 quiet loglevel=3 tsc=reliable panic=-1 oops=panic",
		"-serial", "file:"+h.ConsoleLog(),
		"-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
		"-virtfs", "local,path="+esc(s.Tree)+",mount_tag=repo,security_model=none,multidevs=remap",
		"-virtfs", "local,path="+esc(h.ctl())+",mount_tag=ctl,security_model=none",
		// The wire first: the guest names it eth0.
		"-netdev", "dgram,id=wire,local.type=unix,local.path="+esc(h.wire)+
			",remote.type=unix,remote.path="+esc(filepath.Join(h.f.dir, "hub")),
		"-device", "virtio-net-pci,netdev=wire,mac="+h.mac(1),
	)
	if len(h.forward) > 0 {
		user := "user,id=user,restrict=on,net=10.0.2.0/24"
		for _, gp := range s.Forward {
			user += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-10.0.2.15:%d", h.forward[gp], gp)
		}
		args = append(args, "-netdev", user, "-device", "virtio-net-pci,netdev=user,mac="+h.mac(2))
	}
	return args
}

var virtFlag = regexp.MustCompile(`(?m)^flags\s*:.*\b(vmx|svm)\b`)

// hasVirtualization tells whether KVM can run the guests; otherwise TCG,
// which is faster than KVM without vmx/svm (see docs/testbed.md).
func hasVirtualization() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || !virtFlag.Match(b) {
		return false
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
