package vmfabric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Proc is a command running in a guest.
type Proc struct {
	h    *Host
	boot int
	base string // the job's files, without their extension
	what string
}

// Run runs a command in the guest, from the working tree's root, and
// returns its output (standard output and error, interleaved) and exit
// code. err says why the harness could not tell: the guest is off or
// powered off meanwhile, or ctx ended (the command is then stopped).
func (h *Host) Run(ctx context.Context, args ...string) (out string, code int, err error) {
	p, err := h.Start(args...)
	if err != nil {
		return "", -1, err
	}
	code, err = p.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		_ = p.Stop(context.Background())
	}
	return p.Output(), code, err
}

// Start starts a long-lived command (an agent) in the guest, from the
// working tree's root, and returns at once. It ends with its guest.
func (h *Host) Start(args ...string) (*Proc, error) {
	if len(args) == 0 {
		return nil, errors.New("vmfabric: Start needs a command")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running() {
		return nil, fmt.Errorf("vmfabric: cannot run %s on %s: the guest is off; Boot it first", args[0], h.name)
	}
	h.jobs++
	p := &Proc{
		h:    h,
		boot: h.boot,
		base: filepath.Join(h.ctl(), "jobs", strconv.Itoa(h.jobs)),
		what: fmt.Sprintf("%s on %s", args[0], h.name),
	}
	script := fmt.Sprintf("cd -- %s || exit 125\nexec %s\n", quote(h.f.spec.Tree), quoteAll(args))
	// Written aside and renamed: the guest never sees half a job.
	if err := os.WriteFile(p.base+".tmp", []byte(script), 0o644); err != nil {
		return nil, fmt.Errorf("vmfabric: %w", err)
	}
	if err := os.Rename(p.base+".tmp", p.base+".sh"); err != nil {
		return nil, fmt.Errorf("vmfabric: %w", err)
	}
	return p, nil
}

// Output is what the command wrote so far.
func (p *Proc) Output() string {
	b, _ := os.ReadFile(p.base + ".out")
	return string(b)
}

// Wait waits until the command exits and returns its exit code.
func (p *Proc) Wait(ctx context.Context) (int, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if code, ok, err := p.exitCode(); ok {
			return code, err
		}
		if err := p.alive(); err != nil {
			// It may have exited just before the guest went off.
			if code, ok, rcErr := p.exitCode(); ok {
				return code, rcErr
			}
			return -1, err
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("vmfabric: waiting for %s: %w; its output so far:\n%s", p.what, ctx.Err(), p.Output())
		case <-tick.C:
		}
	}
}

// exitCode reads the exit code the guest wrote, if it did.
func (p *Proc) exitCode() (code int, ok bool, err error) {
	b, err := os.ReadFile(p.base + ".rc")
	if err != nil {
		return -1, false, nil
	}
	code, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1, true, fmt.Errorf("vmfabric: %s reported a bad exit code %q", p.what, b)
	}
	return code, true, nil
}

// Stop sends the command SIGTERM and waits until it exits.
func (p *Proc) Stop(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var pid string
	for pid == "" {
		if fileExists(p.base + ".rc") {
			return nil
		}
		if err := p.alive(); err != nil {
			return err
		}
		// The guest's shell creates the file, then writes its pid: an
		// empty file is one not written yet.
		if b, err := os.ReadFile(p.base + ".pid"); err == nil && strings.TrimSpace(string(b)) != "" {
			pid = strings.TrimSpace(string(b))
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("vmfabric: stopping %s: it never started: %w", p.what, ctx.Err())
		case <-tick.C:
		}
	}
	if out, code, err := p.h.Run(ctx, "kill", "-TERM", pid); err != nil || code != 0 {
		if fileExists(p.base + ".rc") {
			return nil // it exited meanwhile
		}
		return fmt.Errorf("vmfabric: stopping %s: kill -TERM %s exited %d (%v): %s", p.what, pid, code, err, out)
	}
	_, err := p.Wait(ctx)
	return err
}

// alive fails once the guest the command ran in is off.
func (p *Proc) alive() error {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	if p.h.boot != p.boot || !p.h.running() {
		return fmt.Errorf("vmfabric: %s: the guest was powered off before the command exited", p.what)
	}
	return nil
}

// quote makes s one word of a shell command line.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}
