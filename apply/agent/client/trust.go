package client

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Untrusted is an agent socket the client refuses to talk to: its
// directory belongs to another user or lets others in, or the process
// answering on it runs as another user. Requests carry private data of
// sensitive variables and their answers drive the plan, so the client
// sends nothing there (and starts no agent there either).
type Untrusted struct {
	Socket string
	Path   string // the directory or socket found wanting
	Owner  int    // the uid owning Path, or the answering process's uid
	Reason string // what is wrong, in a user's words
}

func (e *Untrusted) Error() string {
	return fmt.Sprintf("refusing the agent socket %s: %s; nothing was sent to it. %s",
		e.Socket, e.Reason, "Remove it and let rdmaform make its own, or use a socket in a directory of your own (-agent=PATH, or the rdmaform { agent { socket } } setting)")
}

// IsUntrusted reports whether err is a refusal of an untrusted socket.
func IsUntrusted(err error) bool {
	var u *Untrusted
	return errors.As(err, &u)
}

// trusted reports whether uid may serve this process: itself or root.
func trusted(uid int) bool { return uid == os.Geteuid() || uid == 0 }

// checkDir refuses a socket whose directory another user (but root) owns
// or may write to: whoever can write there can put a proxy in the agent's
// place. As OpenSSH's safe_path, it judges write access: a directory
// others may only read or search (such as t.TempDir's 0755) lets nobody
// else replace the socket, and the agent itself listens only in a 0700
// one. A missing directory is no agent yet, for the dial to report. A
// directory this user may not even look at is left to the dial too,
// which then says whose the socket is (see unanswered).
func checkDir(socket string) error {
	dir := filepath.Dir(socket)
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EACCES) {
			return nil
		}
		return fmt.Errorf("checking the agent socket's directory %s: %w", dir, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return &Untrusted{Socket: socket, Path: dir, Owner: int(st.Uid), Reason: fmt.Sprintf("%s is not a directory", dir)}
	}
	if !trusted(int(st.Uid)) {
		return &Untrusted{Socket: socket, Path: dir, Owner: int(st.Uid),
			Reason: fmt.Sprintf("its directory %s belongs to %s, not to %s", dir, who(int(st.Uid)), trustedOwners())}
	}
	if perm := st.Mode & 0o7777; perm&0o022 != 0 {
		return &Untrusted{Socket: socket, Path: dir, Owner: int(st.Uid),
			Reason: fmt.Sprintf("its directory %s (owner %s) has mode %04o, so other users could put their own socket there; only its owner may write to it (chmod 0700 %s)", dir, who(int(st.Uid)), perm, dir)}
	}
	return nil
}

// checkPeer refuses a connection whose listening process runs as another
// user than this one or root, as SO_PEERCRED reports it: the directory
// may have changed since checkDir, or the socket be a link elsewhere.
func checkPeer(socket string, c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("the agent socket %s is not a unix socket connection", socket)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("checking who answers at %s: %w", socket, err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return fmt.Errorf("checking who answers at %s: %w", socket, err)
	}
	if credErr != nil {
		return fmt.Errorf("checking who answers at %s: getsockopt(SO_PEERCRED): %w", socket, credErr)
	}
	if !trusted(int(cred.Uid)) {
		return &Untrusted{Socket: socket, Path: socket, Owner: int(cred.Uid),
			Reason: fmt.Sprintf("the process answering there (pid %d) runs as %s, not as %s", cred.Pid, who(int(cred.Uid)), trustedOwners())}
	}
	return nil
}

// trustedOwners says who may own the socket: root, and this user.
func trustedOwners() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	return fmt.Sprintf("you (%s) or root", who(os.Geteuid()))
}

// who names a uid as "name (uid N)", or "uid N" when it has no name.
func who(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
