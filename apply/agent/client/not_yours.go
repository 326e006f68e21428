package client

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// NotYours is an agent socket of another user. The agent serves its own
// user and root only (SO_PEERCRED), and its socket's directory is theirs
// (0700): either refuses this client, which must not take that for an
// agent that is not running (nor start one there).
type NotYours struct {
	Socket string
	Owner  int // the uid owning the socket, or its directory
	Err    error
}

func (e *NotYours) Error() string {
	return fmt.Sprintf("the agent socket %s belongs to %s, and you are %s: an rdmaform agent serves its own user (and root) only. Run as that user, or use an agent of your own (-agent=PATH, or the rdmaform { agent { socket } } setting): %s",
		e.Socket, who(e.Owner), who(os.Getuid()), Words(e.Err))
}

func (e *NotYours) Unwrap() error { return e.Err }

// unanswered is why the agent at socket did not answer: NotYours when
// the socket is another user's, or a directory of another user keeps this
// one from it, else NotRunning.
func unanswered(socket string, err error) error {
	uid := os.Getuid()
	if uid == 0 {
		return &NotRunning{Socket: socket, Err: err}
	}
	// The first path that can be read: the socket, or the directory this
	// user may not search, which hides what is below it.
	var st syscall.Stat_t
	path := socket
	serr := syscall.Stat(path, &st)
	for errors.Is(serr, syscall.EACCES) && path != filepath.Dir(path) {
		path = filepath.Dir(path)
		serr = syscall.Stat(path, &st)
	}
	if serr == nil && int(st.Uid) != uid && (path == socket || st.Mode&0o001 == 0) {
		return &NotYours{Socket: socket, Owner: int(st.Uid), Err: err}
	}
	return &NotRunning{Socket: socket, Err: err}
}
