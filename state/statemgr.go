package state

// Reader returns the manager's current snapshot: a copy the caller may
// modify freely, or nil when no state exists yet.
type Reader interface {
	State() *State
}

// Writer replaces the manager's snapshot in memory; PersistState stores it.
type Writer interface {
	WriteState(*State) error
}

// Refresher loads the snapshot from storage, replaying any journal left by
// an interrupted apply.
type Refresher interface {
	RefreshState() error
}

// Persister stores the snapshot. It writes only when the content differs
// from what was last read or written, and then with a higher serial. It
// fails, writing nothing, if storage changed since it was last read.
type Persister interface {
	PersistState() error
}

// Locker takes and releases the state lock. Lock returns at once; a
// *LockError says who holds the lock. Use LockWithTimeout to wait.
type Locker interface {
	Lock(info *LockInfo) (id string, err error)
	Unlock(id string) error
}

// LockLoser is implemented by a manager whose lock can be lost while
// held (an etcd lease): LockLost is closed when it is (nil when no lock is
// held), so that a command stops changing what the state no longer
// guards.
type LockLoser interface {
	LockLost() <-chan struct{}
}

// LockInspector reads the current lock holder and breaks a lock by ID, for
// force-unlock.
type LockInspector interface {
	// LockHolder returns the lock's holder, or nil if it is free.
	LockHolder() (*LockInfo, error)
	// ForceUnlockable returns the info of the lock ForceUnlock(id) would
	// release, or the error it would refuse with (no lock held under id),
	// changing nothing: force-unlock asks only about a lock it can break.
	ForceUnlockable(id string) (*LockInfo, error)
	// ForceUnlock releases the lock held under id, whoever holds it.
	ForceUnlock(id string) error
}

// Journaler opens a Recorder that persists changes one by one.
type Journaler interface {
	OpenRecorder() (Recorder, error)
}

// Full is everything a backend provides.
type Full interface {
	Reader
	Writer
	Refresher
	Persister
	Locker
	LockInspector
	Journaler
	// Describe names the storage for messages: a file name or an etcd
	// prefix.
	Describe() string
	// Close releases connections; it does not unlock.
	Close() error
}

// Manager is the type commands and apply hold.
type Manager = Full
