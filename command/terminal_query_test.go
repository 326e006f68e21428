package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair that nothing answers on: what expect,
// script or `ssh -tt` give a command.
func openPTY(t *testing.T) (primary, replica *os.File) {
	t.Helper()
	primary, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { primary.Close() })
	if err := unix.IoctlSetPointerInt(int(primary.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(primary.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	replica, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { replica.Close() })
	return primary, replica
}

// bubbletea v1 queries the terminal in a package init; rdmaform must not,
// or every command waits 5 s in a terminal that does not answer and writes
// escape sequences into what it prints (tui/internal/quietinit).
func TestCommandsDoNotQueryTheTerminal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"version"}, {"-chdir=../examples/loopback", "validate"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			primary, replica := openPTY(t)
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), asCLIEnv+"=1", "TERM=xterm-256color")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = replica, replica, replica
			// The terminal as the command's controlling terminal, its
			// process group in the foreground: termenv queries only then.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			replica.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var out bytes.Buffer
			copied := make(chan error, 1)
			go func() { _, err := io.Copy(&out, primary); copied <- err }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("rdmaform %s: %v", strings.Join(args, " "), err)
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("rdmaform %s did not end", strings.Join(args, " "))
			}
			// Reading the primary ends with EIO once the replica is closed
			// by the command's exit.
			if err := <-copied; err != nil && !errors.Is(err, syscall.EIO) {
				t.Fatal(err)
			}
			for _, query := range []string{"\x1b]11;?", "\x1b[6n"} {
				if strings.Contains(out.String(), query) {
					t.Errorf("rdmaform %s wrote the terminal query %q:\n%q", strings.Join(args, " "), query, out.String())
				}
			}
			if out.Len() == 0 {
				t.Error("the command wrote nothing to its terminal")
			}
		})
	}
}
