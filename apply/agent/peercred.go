package agent

import (
	"log/slog"
	"net"

	"golang.org/x/sys/unix"
)

// peerListener admits only clients of the agent's own uid or root, as
// SO_PEERCRED reports them; others are logged and disconnected before
// they say anything.
type peerListener struct {
	net.Listener
	uid uint32
	log *slog.Logger
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cred, err := peerCred(c)
		if err != nil {
			l.log.Warn("refused a client: SO_PEERCRED failed", "err", err)
			c.Close()
			continue
		}
		if cred.Uid != l.uid && cred.Uid != 0 {
			l.log.Warn("refused a client of another user", "peer_uid", cred.Uid, "peer_pid", cred.Pid, "agent_uid", l.uid)
			c.Close()
			continue
		}
		return c, nil
	}
}

// peerCred reads the connecting process's credentials.
func peerCred(c net.Conn) (*unix.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, &net.OpError{Op: "getsockopt", Net: c.LocalAddr().Network(), Err: unix.EAFNOSUPPORT}
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, &net.OpError{Op: "getsockopt(SO_PEERCRED)", Net: "unix", Err: credErr}
	}
	return cred, nil
}
