package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DefaultPath is the local state file, next to the configuration.
const DefaultPath = "rdmaform.rdmastate"

// LocalOptions configure the local backend.
type LocalOptions struct {
	// Path is the state file; DefaultPath when empty.
	Path string
}

// Filesystem is the local backend: one JSON file, replaced atomically on
// every write, its previous version kept as PATH.backup. The lock is a
// flock on .PATH.lock (removed on unlock), with the holder described in
// .PATH.lock.info; the
// journal of an apply in progress is PATH.journal.
type Filesystem struct {
	path, backupPath, lockPath, infoPath, journalPath string

	mu        sync.Mutex
	read      *State // as last read from or written to the file; nil if none
	readBytes []byte // the file's bytes when read, to detect a change under us
	readFound bool   // whether the file existed when read
	cur       *State // the snapshot State and WriteState work on
	recording bool   // a Recorder is open

	lockFile *os.File
	lockID   string
	// notes are what the last RefreshState found that the user should
	// know (a damaged journal).
	notes []string
	// unchanged: cur holds what read does (read and nothing replayed,
	// written or recorded since), so persisting need not compare them
	// (which encodes both: for a thousand objects, most of opening a
	// recorder).
	unchanged bool
}

var _ Full = (*Filesystem)(nil)

// NewFilesystem returns the local backend for opts. It touches nothing on
// disk until RefreshState, PersistState or Lock.
func NewFilesystem(opts LocalOptions) *Filesystem {
	p := opts.Path
	if p == "" {
		p = DefaultPath
	}
	dir, base := filepath.Split(p)
	return &Filesystem{
		path:        p,
		backupPath:  p + ".backup",
		lockPath:    filepath.Join(dir, "."+base+".lock"),
		infoPath:    filepath.Join(dir, "."+base+".lock.info"),
		journalPath: p + ".journal",
	}
}

// Describe returns the state file's name.
func (f *Filesystem) Describe() string { return f.path }

// Path returns the state file's name.
func (f *Filesystem) Path() string { return f.path }

// Close does nothing for local files; it does not unlock.
func (f *Filesystem) Close() error { return nil }

// State returns a copy of the current snapshot, or nil if there is none.
func (f *Filesystem) State() *State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.DeepCopy()
}

// WriteState replaces the snapshot in memory.
func (f *Filesystem) WriteState(s *State) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recording {
		return errors.New("state: WriteState while a Recorder is open; record changes through it")
	}
	f.cur, f.unchanged = s.DeepCopy(), false
	return nil
}

// RefreshState reads the state file and replays the journal an interrupted
// apply left behind. On error nothing in memory changes.
func (f *Filesystem) RefreshState() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recording {
		return errors.New("state: RefreshState while a Recorder is open")
	}
	f.notes = nil
	read, data, err := f.readFile()
	if err != nil {
		return err
	}
	cur := read.DeepCopy()
	cur, replayed, err := f.replayJournal(read, cur)
	if err != nil {
		return err
	}
	f.read, f.readBytes, f.readFound, f.cur = read, data, read != nil, cur
	f.unchanged = read != nil && !replayed
	return nil
}

// Notes are warnings from the last RefreshState: a journal replayed
// without some of its records.
func (f *Filesystem) Notes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.notes...)
}

func (f *Filesystem) readFile() (*State, []byte, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading state: %w", err)
	}
	s, err := Decode(data, f.path)
	if err != nil {
		return nil, nil, err
	}
	return s, data, nil
}

// PersistState writes the snapshot if its content differs from the file's,
// with serial max(snapshot serial, file serial + 1). It refuses to write if
// the file changed since it was read.
func (f *Filesystem) PersistState() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recording {
		return errors.New("state: PersistState while a Recorder is open; its Close persists")
	}
	return f.persistLocked()
}

func (f *Filesystem) persistLocked() error {
	if f.cur == nil {
		return nil
	}
	if f.read != nil && f.read.Lineage == f.cur.Lineage && (f.unchanged || SameContent(f.read, f.cur)) {
		return f.removeJournalLocked()
	}
	next := f.cur.DeepCopy()
	next.RdmaformVersion = RdmaformVersion
	next.Serial = max(next.Serial, 1)
	if f.read != nil {
		next.Serial = max(next.Serial, f.read.Serial+1)
	}
	data, err := Encode(next)
	if err != nil {
		return err
	}
	disk, err := os.ReadFile(f.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading state: %w", err)
	}
	if found := err == nil; found != f.readFound || !bytes.Equal(disk, f.readBytes) {
		return fmt.Errorf("%s changed since rdmaform read it (another rdmaform run with -lock=false?); refusing to overwrite it. Nothing was written; run the command again", f.path)
	}
	if f.readBytes != nil {
		if err := writeFileAtomic(f.backupPath, f.readBytes); err != nil {
			return err
		}
	}
	if err := writeFileAtomic(f.path, data); err != nil {
		return err
	}
	f.read, f.readBytes, f.readFound = next, data, true
	f.cur.Serial, f.cur.RdmaformVersion = next.Serial, next.RdmaformVersion
	f.unchanged = true
	return f.removeJournalLocked()
}

// removeJournalLocked removes a journal already folded into the file,
// unless a Recorder is writing it.
func (f *Filesystem) removeJournalLocked() error {
	if f.recording {
		return nil
	}
	err := os.Remove(f.journalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the applied journal: %w", err)
	}
	return syncDir(filepath.Dir(f.journalPath))
}
