package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// LockInfo describes a lock holder; it is stored next to the lock so that
// others can say who holds it and force-unlock can name it.
type LockInfo struct {
	ID        string    `json:"ID"`
	Operation string    `json:"Operation"`
	Info      string    `json:"Info,omitempty"`
	Who       string    `json:"Who"`
	Version   string    `json:"Version"`
	Created   time.Time `json:"Created"`
	Path      string    `json:"Path"`
	PID       int       `json:"PID"`
	Host      string    `json:"Host"`
}

// NewLockInfo describes this process taking the lock for operation (Terraform
// style, e.g. "OperationTypeApply"); the backend fills in ID and Path.
func NewLockInfo(operation string) *LockInfo {
	host, _ := os.Hostname()
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	return &LockInfo{
		Operation: operation,
		Who:       who + "@" + host,
		Version:   RdmaformVersion,
		Created:   time.Now().UTC(),
		PID:       os.Getpid(),
		Host:      host,
	}
}

func newLockID() string { return uuid.NewString() }

// holderInfoWait is how long a process that found the lock taken looks
// for the holder's info before calling the holder unknown. A holder
// writes its info right after taking the lock, but that write (with an
// fsync for a local lock, a round trip for etcd) took over half a second
// on a host busy with other builds, and a loser then named no holder.
// Only a holder that is not rdmaform, or is stuck, makes anyone wait it
// out.
const holderInfoWait = 5 * time.Second

// String formats the info the way Terraform prints "Lock Info:". A lock
// taken by a holder that has not written its info yet (Known is false)
// shows only its ID and path: the rest is not known, rather than empty.
// The holder wrote it, maybe another user: its text is escaped.
func (li *LockInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  ID:        %s\n", termsafe.String(li.ID))
	fmt.Fprintf(&b, "  Path:      %s\n", termsafe.String(li.Path))
	if !li.Known() {
		return b.String()
	}
	fmt.Fprintf(&b, "  Operation: %s\n", termsafe.String(li.Operation))
	fmt.Fprintf(&b, "  Who:       %s\n", termsafe.String(li.Who))
	fmt.Fprintf(&b, "  PID:       %d\n", li.PID)
	fmt.Fprintf(&b, "  Version:   %s\n", termsafe.String(li.Version))
	fmt.Fprintf(&b, "  Created:   %s\n", li.Created.Format("2006-01-02 15:04:05.999999999 -0700 MST"))
	fmt.Fprintf(&b, "  Info:      %s\n", termsafe.String(li.Info))
	return b.String()
}

// Known reports whether the holder wrote who it is (a lock is taken a
// moment before its info is written).
func (li *LockInfo) Known() bool { return !li.Created.IsZero() || li.Who != "" }

func (li *LockInfo) marshal() []byte {
	b, _ := json.MarshalIndent(li, "", "  ")
	return append(b, '\n')
}

func unmarshalLockInfo(b []byte, source string) (*LockInfo, error) {
	var li LockInfo
	if err := json.Unmarshal(b, &li); err != nil {
		return nil, fmt.Errorf("reading lock info from %s: %v", source, err)
	}
	return &li, nil
}

// ErrLocked is matched (errors.Is) by every *LockError.
var ErrLocked = errors.New("state is locked")

// LockError reports a lock held by someone else (Info, when known) or a
// failure to take or release it.
type LockError struct {
	Info *LockInfo
	Err  error
	// Note is what the backend adds about its locks (how one left by a
	// holder that died goes away), or "".
	Note string
}

func (e *LockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Error acquiring the state lock\n\nError message: %v\n", e.Err)
	if e.Info != nil {
		b.WriteString("Lock Info:\n")
		b.WriteString(e.Info.String())
	}
	if e.Note != "" {
		b.WriteString("\n" + e.Note + "\n")
	}
	b.WriteString("\nrdmaform acquires a state lock to protect the state from being written\n" +
		"by multiple users at the same time. Please resolve the issue above and try\n" +
		"again. For most commands, you can disable locking with the \"-lock=false\"\n" +
		"flag, but this is not recommended.")
	return b.String()
}

func (e *LockError) Unwrap() []error { return []error{ErrLocked, e.Err} }

// LockWithTimeout calls l.Lock until it succeeds, ctx ends or timeout
// passes, backing off from 10ms to 1s between tries. A zero timeout tries
// once. The final error is the last *LockError, naming the holder.
func LockWithTimeout(ctx context.Context, l Locker, info *LockInfo, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	delay := 10 * time.Millisecond
	for {
		id, err := l.Lock(info)
		if err == nil {
			return id, nil
		}
		if !(errors.Is(err, ErrLocked) || transient(err)) || !time.Now().Before(deadline) {
			if timeout > 0 && errors.Is(err, ErrLocked) {
				var le *LockError
				if errors.As(err, &le) {
					return "", &LockError{Info: le.Info, Err: fmt.Errorf("timeout after %s: %w", timeout, le.Err), Note: le.Note}
				}
			}
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(min(jitter(delay), time.Until(deadline))):
		}
		delay = min(delay*2, time.Second)
	}
}

// transient reports a failure to reach the lock's store that may pass, such
// as an etcd request timing out under load: worth retrying while the
// caller's -lock-timeout lasts, like a held lock.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.Unavailable
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(time.Now().UnixNano()%int64(d/2+1))
}

// UnlockError is a lock that could not be released, which releases itself
// ExpiresIn after this process stops keeping it alive (an etcd lease), if
// not zero.
type UnlockError struct {
	Err       error
	ExpiresIn time.Duration
}

func (e *UnlockError) Error() string { return e.Err.Error() }

func (e *UnlockError) Unwrap() error { return e.Err }
