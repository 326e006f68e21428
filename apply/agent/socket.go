package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketLock is the agent's claim on its socket: an flock on SOCKET.lock,
// held for the agent's life, so that a second agent on the same socket is
// refused (with the first one's pid) and a socket left by a crash can be
// removed safely.
type socketLock struct {
	path string
	file *os.File
}

// ErrAgentRunning is returned when another agent already serves the socket.
var ErrAgentRunning = errors.New("another rdmaform agent is already running")

// checkDir makes the socket's directory (mode 0700) when missing and
// refuses one that others could enter or that another user owns.
func checkDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return fmt.Errorf("%s is not a directory", dir)
	}
	// Another user's directory, or one others may write to, lets them put
	// their own socket in the agent's place: refuse to listen there.
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("the socket directory %s belongs to %s, not to %s, the agent's user: another user could replace the agent's socket there; remove it or give the agent a socket in a directory of its own", dir, who(int(st.Uid)), who(os.Geteuid()))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the socket directory %s has mode %04o: it must be 0700 so that only its owner reaches the agent (chmod 0700 %s)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// who names a uid as "name (uid N)", or "uid N" when it has no name.
func who(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

func lockSocket(socket string) (*socketLock, error) {
	path := socket + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the agent's lock file: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(b))
			return nil, fmt.Errorf("%w (pid %s) on %s: stop it with `rdmaform agent stop -socket=%s`, or give this one another -socket",
				ErrAgentRunning, pid, socket, socket)
		}
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &socketLock{path: path, file: f}, nil
}

// release removes the lock file and drops the lock; it is idempotent.
func (l *socketLock) release() {
	if l == nil || l.file == nil {
		return
	}
	os.Remove(l.path)
	l.file.Close()
	l.file = nil
}

// listenSocket removes a stale socket (the caller holds the lock, so no
// agent serves it) and listens with mode 0600. It reports whether it
// removed one.
func listenSocket(socket string) (net.Listener, bool, error) {
	stale := false
	if fi, err := os.Lstat(socket); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, false, fmt.Errorf("%s exists and is not a socket: remove it or choose another -socket", socket)
		}
		if err := os.Remove(socket); err != nil {
			return nil, false, fmt.Errorf("removing the stale socket: %w", err)
		}
		stale = true
	}
	old := unix.Umask(0o177)
	ln, err := net.Listen("unix", socket)
	unix.Umask(old)
	if err != nil {
		return nil, stale, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return nil, stale, err
	}
	return ln, stale, nil
}

func socketDir(socket string) string { return filepath.Dir(socket) }
