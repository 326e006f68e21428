package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func TestFilesystemRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, DefaultPath)
	m := NewFilesystem(LocalOptions{Path: p})
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if m.State() != nil {
		t.Fatal("State() should be nil before any state exists")
	}
	s := New()
	s.SetObject(testObject(t, `endpoint.client[3]`, 3))
	s.SetObject(testObject(t, `listener.fanout["b"]`, 1))
	s.Objects["endpoint.client[3]"].Dependencies = []addrs.Instance{mustAddr(t, "listener.fanout[\"b\"]")}
	s.SetOutput("addr", &Output{Value: json.RawMessage(`"10.0.0.1"`), Sensitive: true})
	if err := m.WriteState(s); err != nil {
		t.Fatal(err)
	}
	if err := m.PersistState(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(p + ".backup"); !os.IsNotExist(err) {
		t.Errorf("a first write should leave no backup, got %v", err)
	}

	m2 := NewFilesystem(LocalOptions{Path: p})
	if err := m2.RefreshState(); err != nil {
		t.Fatal(err)
	}
	got := m2.State()
	if got.Serial != 1 || got.Lineage != s.Lineage || !SameContent(got, s) {
		t.Fatalf("read back serial %d lineage %s, content equal %v", got.Serial, got.Lineage, SameContent(got, s))
	}

	// No change: no write, same serial.
	if err := m2.PersistState(); err != nil {
		t.Fatal(err)
	}
	if m2.State().Serial != 1 {
		t.Fatal("persisting unchanged content bumped the serial")
	}
	// A change: serial 2, the old file kept as the backup.
	got.RemoveObject(mustAddr(t, "endpoint.client[3]"))
	m2.WriteState(got)
	if err := m2.PersistState(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p + ".backup")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Decode(b, "backup")
	if err != nil || bs.Serial != 1 || len(bs.Objects) != 2 {
		t.Fatalf("backup: %v %+v", err, bs)
	}
	if m2.State().Serial != 2 {
		t.Fatalf("serial %d after a change, want 2", m2.State().Serial)
	}
}

func TestFilesystemRefusesChangeUnderneath(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	a, b := NewFilesystem(LocalOptions{Path: p}), NewFilesystem(LocalOptions{Path: p})
	s := New()
	a.WriteState(s)
	if err := a.PersistState(); err != nil {
		t.Fatal(err)
	}
	b.RefreshState()
	a.RefreshState()
	sa := a.State()
	sa.SetObject(testObject(t, "endpoint.a", 1))
	a.WriteState(sa)
	if err := a.PersistState(); err != nil {
		t.Fatal(err)
	}
	sb := b.State()
	sb.SetObject(testObject(t, "endpoint.b", 1))
	b.WriteState(sb)
	err := b.PersistState()
	if err == nil || !strings.Contains(err.Error(), "changed since rdmaform read it") {
		t.Fatalf("a stale writer was not refused: %v", err)
	}
	a.RefreshState()
	if a.State().Object(mustAddr(t, "endpoint.a")) == nil {
		t.Fatal("first writer's change lost")
	}
}

func TestFilesystemLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	a, b := NewFilesystem(LocalOptions{Path: p}), NewFilesystem(LocalOptions{Path: p})
	info := NewLockInfo("OperationTypeApply")
	id, err := a.Lock(info)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(NewLockInfo("OperationTypePlan"))
	var le *LockError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second locker: %v", err)
	}
	if le.Info == nil || le.Info.ID != id || le.Info.Operation != "OperationTypeApply" || le.Info.PID != os.Getpid() {
		t.Fatalf("lock error does not name the holder: %+v", le.Info)
	}
	if !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "-lock=false") {
		t.Fatalf("message: %s", err)
	}
	h, err := b.LockHolder()
	if err != nil || h == nil || h.ID != id {
		t.Fatalf("LockHolder = %+v, %v", h, err)
	}
	if err := b.ForceUnlock(id); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("force-unlock of a live local lock: %v", err)
	}
	if err := b.ForceUnlock("wrong"); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("force-unlock with a wrong ID: %v", err)
	}
	if err := a.Unlock("wrong"); err == nil {
		t.Fatal("Unlock with a wrong ID succeeded")
	}
	if err := a.Unlock(id); err != nil {
		t.Fatal(err)
	}
	if h, err := b.LockHolder(); err != nil || h != nil {
		t.Fatalf("after unlock LockHolder = %+v, %v", h, err)
	}
	id2, err := b.Lock(info)
	if err != nil {
		t.Fatal(err)
	}
	b.Unlock(id2)
}

func TestFilesystemStaleLockInfoIsForceUnlocked(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	m := NewFilesystem(LocalOptions{Path: p})
	// A holder that died leaves its info but not its flock.
	li := NewLockInfo("OperationTypeApply")
	li.ID, li.PID = "dead-1", 999999
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "."+DefaultPath+".lock.info"), li.marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, _ := m.LockHolder(); h != nil {
		t.Fatalf("a dead holder's info reported as held: %+v", h)
	}
	if err := m.ForceUnlock("dead-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock(NewLockInfo("x")); err != nil {
		t.Fatal(err)
	}
}

func TestRecorderReplayAndFold(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	m := NewFilesystem(LocalOptions{Path: p})
	m.RefreshState()
	rec, err := m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := rec.Record(PutObject(testObject(t, "endpoint.e["+itoa(i)+"]", i))); err != nil {
			t.Fatal(err)
		}
	}
	rec.Record(DeleteObject(mustAddr(t, "endpoint.e[0]")))
	rec.Record(PutOutput("o", &Output{Value: json.RawMessage(`1`)}))
	// Simulate a crash: read with another manager before Close.
	m2 := NewFilesystem(LocalOptions{Path: p})
	if err := m2.RefreshState(); err != nil {
		t.Fatal(err)
	}
	s := m2.State()
	if len(s.Objects) != 19 || s.Outputs["o"] == nil {
		t.Fatalf("replay: %d objects, outputs %v", len(s.Objects), s.Outputs)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p + ".journal"); !os.IsNotExist(err) {
		t.Fatalf("journal left after Close: %v", err)
	}
	m3 := NewFilesystem(LocalOptions{Path: p})
	if err := m3.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if !SameContent(m3.State(), s) || m3.State().Serial != 1 {
		t.Fatalf("folded state differs or serial %d != 1", m3.State().Serial)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestNoPersistWhileRecording(t *testing.T) {
	m := NewFilesystem(LocalOptions{Path: filepath.Join(t.TempDir(), DefaultPath)})
	m.RefreshState()
	rec, err := m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := m.PersistState(); err == nil {
		t.Fatal("PersistState while recording would orphan the journal, but succeeded")
	}
	if err := m.WriteState(New()); err == nil {
		t.Fatal("WriteState while recording succeeded")
	}
}

// Unlock leaves no lock file behind, as Terraform's local lock; lockers
// racing with unlocks still exclude each other (a flock taken on a file
// just removed is let go and taken again on the path's file).
func TestFilesystemLockLeavesNoFileAndExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	a := NewFilesystem(LocalOptions{Path: p})
	id, err := a.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(id); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*lock*")); len(left) != 0 {
		t.Fatalf("left after unlock: %v", left)
	}

	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := NewFilesystem(LocalOptions{Path: p})
			for got := 0; got < 25; {
				id, err := m.Lock(NewLockInfo("OperationTypePlan"))
				if err != nil {
					continue // held by another: try again
				}
				n := inside.Add(1)
				for {
					if old := most.Load(); n <= old || most.CompareAndSwap(old, n) {
						break
					}
				}
				time.Sleep(100 * time.Microsecond) // long enough to overlap a wrong second holder
				if inside.Load() != 1 {
					most.Store(max(most.Load(), 2))
				}
				inside.Add(-1)
				if err := m.Unlock(id); err != nil {
					t.Error(err)
					return
				}
				got++
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d lockers held the lock at once", most.Load())
	}
}

// holdFlock takes b's flock as a process other than rdmaform would, or
// one that has not written its info yet, for the rest of the test.
func holdFlock(t *testing.T, b *Filesystem) {
	t.Helper()
	lf, err := os.OpenFile(b.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

// TestFilesystemLockHeldWithoutInfo: a lock whose holder has not written
// its info (it has just taken it, or is not rdmaform) is described as
// such, not with empty fields and a zero date, and force-unlock does not
// call it unlocked.
func TestFilesystemLockHeldWithoutInfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	b := NewFilesystem(LocalOptions{Path: p})
	holdFlock(t, b)
	_, err := b.Lock(NewLockInfo("OperationTypePlan"))
	var le *LockError
	if !errors.As(err, &le) || le.Info == nil {
		t.Fatalf("second locker: %v", err)
	}
	if le.Info.Known() {
		t.Errorf("the holder's info is known: %+v", le.Info)
	}
	if msg := err.Error(); strings.Contains(msg, "0001-01-01") || strings.Contains(msg, "PID:       0") || !strings.Contains(msg, "has not written") {
		t.Errorf("message shows empty fields or lacks why:\n%s", msg)
	}
	if err := b.ForceUnlock("x"); err == nil || strings.Contains(err.Error(), "not locked") || !strings.Contains(err.Error(), "held by a process") {
		t.Errorf("force-unlock of a lock held without info: %v", err)
	}
}

// A holder slow to write its info after taking the lock (its write
// fsyncs, on a busy host) is still named to the process that finds the
// lock taken: losers once gave up after half a second and named nobody.
// The holder here writes a second after taking the flock.
func TestFilesystemLockNamesASlowHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	b := NewFilesystem(LocalOptions{Path: p})
	holdFlock(t, b)
	holder := NewLockInfo("OperationTypeApply")
	holder.ID, holder.Path = newLockID(), p
	wrote := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		wrote <- writeFileAtomic(b.infoPath, holder.marshal())
	}()
	_, err := b.Lock(NewLockInfo("OperationTypePlan"))
	if werr := <-wrote; werr != nil {
		t.Fatal(werr)
	}
	var le *LockError
	if !errors.As(err, &le) || le.Info == nil {
		t.Fatalf("second locker: %v", err)
	}
	if le.Info.ID != holder.ID || le.Info.Operation != "OperationTypeApply" {
		t.Errorf("the loser was told %+v, want the holder %s", le.Info, holder.ID)
	}
}

// Opening a recorder folds in what the snapshot holds beyond the file: a
// journal replayed, or a state written; a snapshot read and untouched
// leaves the file as it is.
func TestOpenRecorderFoldsOnlyWhatChanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	m := NewFilesystem(LocalOptions{Path: p})
	m.RefreshState()
	s := New()
	s.SetObject(testObject(t, "endpoint.e[0]", 0))
	m.WriteState(s)
	if err := m.PersistState(); err != nil {
		t.Fatal(err)
	}
	serial := func() uint64 {
		m := NewFilesystem(LocalOptions{Path: p})
		if err := m.RefreshState(); err != nil {
			t.Fatal(err)
		}
		return m.State().Serial
	}
	open := func(change func(m *Filesystem)) {
		m := NewFilesystem(LocalOptions{Path: p})
		if err := m.RefreshState(); err != nil {
			t.Fatal(err)
		}
		change(m)
		rec, err := m.OpenRecorder()
		if err != nil {
			t.Fatal(err)
		}
		rec.Close()
	}
	before := serial()
	open(func(*Filesystem) {})
	if got := serial(); got != before {
		t.Fatalf("an untouched snapshot was written: serial %d -> %d", before, got)
	}
	open(func(m *Filesystem) {
		s := m.State()
		s.SetObject(testObject(t, "endpoint.e[1]", 1))
		m.WriteState(s)
	})
	m2 := NewFilesystem(LocalOptions{Path: p})
	m2.RefreshState()
	if got := serial(); got != before+1 || len(m2.State().Objects) != 2 {
		t.Fatalf("a written snapshot: serial %d -> %d, %d objects", before, got, len(m2.State().Objects))
	}
}
