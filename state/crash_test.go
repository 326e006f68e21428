package state

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// crashKills is how many times each crash test SIGKILLs a writer after it
// has made at least one write durable.
const crashKills = 200

// childCrashPersist rewrites the whole state in a loop: every object's "n"
// attribute equals the serial of the state it is written in, so a state
// read back is either entirely one version or wrong.
func childCrashPersist(spec string) error {
	m, err := openSpec(spec)
	if err != nil {
		return err
	}
	fmt.Println("READY")
	for {
		if err := m.RefreshState(); err != nil {
			return err
		}
		s := m.State()
		if s == nil {
			s = New()
		}
		next := int(s.Serial) + 1
		for i := range 100 {
			s.SetObject(testObject(nil, "endpoint.e["+strconv.Itoa(i)+"]", next))
		}
		m.WriteState(s)
		if err := m.PersistState(); err != nil {
			return err
		}
		fmt.Printf("ACK %d\n", m.State().Serial)
	}
}

// childCrashJournal records objects e[0], e[1], ... one by one through a
// Recorder, folding the journal every few records.
func childCrashJournal(path string) error {
	m := NewFilesystem(LocalOptions{Path: path})
	for {
		if err := m.RefreshState(); err != nil {
			return err
		}
		n := 0
		if s := m.State(); s != nil {
			n = len(s.Objects)
		}
		rec, err := m.OpenRecorder()
		if err != nil {
			return err
		}
		for range 1 + rand.IntN(40) {
			if err := rec.Record(PutObject(testObject(nil, "endpoint.e["+strconv.Itoa(n)+"]", n))); err != nil {
				return err
			}
			n++
			fmt.Printf("ACK %d\n", n)
		}
		if err := rec.Close(); err != nil {
			return err
		}
	}
}

// killAfterAck starts a child, waits for its first ACK, lets it run a
// random while longer, kills it, and returns the last ACK it printed (or
// -1) and whether the kill came after the first ACK.
func killAfterAck(t *testing.T, mode, path string) (last int, ok bool) {
	t.Helper()
	cmd := childCommand(t, mode, path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acks := make(chan int, 1<<16)
	errs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if n, found := strings.CutPrefix(line, "ACK "); found {
				v, _ := strconv.Atoi(n)
				acks <- v
			} else if line != "READY" {
				errs <- line
			}
		}
		close(acks)
	}()
	last = -1
	select {
	case v, open := <-acks:
		if open {
			last, ok = v, true
		}
	case <-time.After(10 * time.Second):
	}
	time.Sleep(time.Duration(rand.IntN(6000)) * time.Microsecond)
	cmd.Process.Signal(syscall.SIGKILL)
	for v := range acks {
		last = v
	}
	cmd.Wait()
	select {
	case e := <-errs:
		t.Fatalf("child failed: %s", e)
	default:
	}
	return last, ok
}

func TestCrashPersist(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, DefaultPath)
	prev := 0
	kills := 0
	for try := 0; kills < crashKills; try++ {
		if try > 3*crashKills {
			t.Fatalf("only %d of %d kills came after a durable write", kills, try)
		}
		last, ok := killAfterAck(t, "crash-persist", "local:"+p)
		if ok {
			kills++
		} else {
			last = prev
		}
		m := NewFilesystem(LocalOptions{Path: p})
		if err := m.RefreshState(); err != nil {
			t.Fatalf("kill %d: state does not load: %v", kills, err)
		}
		s := m.State()
		if got := int(s.Serial); got != last && got != last+1 {
			t.Fatalf("kill %d: serial %d, want %d (last reported) or %d (in flight)", kills, got, last, last+1)
		}
		if len(s.Objects) != 100 {
			t.Fatalf("kill %d: %d objects, want 100", kills, len(s.Objects))
		}
		for _, o := range s.Objects {
			if n := attrN(t, o); n != int(s.Serial) {
				t.Fatalf("kill %d: %s written at serial %d in a state of serial %d: a mixed version", kills, o.Addr, n, s.Serial)
			}
		}
		if b, err := os.ReadFile(p + ".backup"); err == nil {
			bs, err := Decode(b, "backup")
			if err != nil {
				t.Fatalf("kill %d: backup does not load: %v", kills, err)
			}
			if bs.Serial > s.Serial {
				t.Fatalf("kill %d: backup serial %d is newer than the state's %d", kills, bs.Serial, s.Serial)
			}
		}
		prev = int(s.Serial)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+DefaultPath+"*.tmp-*"))
	t.Logf("%d SIGKILLs after a durable write; final serial %d; %d kills landed between creating a temporary file and renaming it", kills, prev, len(tmps))
}

func TestCrashJournal(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, DefaultPath)
	prev := 0
	kills, withJournal := 0, 0
	for try := 0; kills < crashKills; try++ {
		if try > 3*crashKills {
			t.Fatalf("only %d of %d kills came after a durable record", kills, try)
		}
		last, ok := killAfterAck(t, "crash-journal", p)
		if ok {
			kills++
		} else {
			last = prev
		}
		if _, err := os.Stat(p + ".journal"); err == nil {
			withJournal++
		}
		m := NewFilesystem(LocalOptions{Path: p})
		if err := m.RefreshState(); err != nil {
			t.Fatalf("kill %d: state and journal do not load: %v", kills, err)
		}
		// A kill damages nothing: at most it cuts the last write short
		// (a write crossing a page boundary), which is said as such.
		if notes := m.Notes(); len(notes) > 1 || len(notes) == 1 && (!strings.Contains(notes[0], "its last write was interrupted") || strings.Contains(notes[0], "checksum")) {
			t.Fatalf("kill %d: %q", kills, notes)
		}
		n := 0
		if s := m.State(); s != nil {
			n = len(s.Objects)
			for i := range n {
				o := s.Object(mustAddr(t, "endpoint.e["+strconv.Itoa(i)+"]"))
				if o == nil || attrN(t, o) != i {
					t.Fatalf("kill %d: objects are not e[0..%d): e[%d] = %+v", kills, n, i, o)
				}
			}
		}
		if n != last && n != last+1 {
			t.Fatalf("kill %d: %d records after replay, want %d (last reported durable) or %d (in flight)", kills, n, last, last+1)
		}
		prev = n
	}
	t.Logf("%d SIGKILLs after a durable record (%d left a journal to replay); %d records in the end", kills, withJournal, prev)
}

// TestCrashPersistEtcd kills writers of the etcd backend: a write puts
// chunks and then swaps the header in one transaction, so a reader sees
// the old or the new version, never a mix, and no unreferenced chunks
// survive the next write.
func TestCrashPersistEtcd(t *testing.T) {
	ep := etcdtest.Start(t)
	spec := "etcd:" + ep + "|/crash"
	prev, kills := 0, 0
	for try := 0; kills < crashKills; try++ {
		if try > 3*crashKills {
			t.Fatalf("only %d of %d kills came after a durable write", kills, try)
		}
		last, ok := killAfterAck(t, "crash-persist", spec)
		if ok {
			kills++
		} else {
			last = prev
		}
		m := newTestEtcd(t, ep, "/crash")
		if err := m.RefreshState(); err != nil {
			t.Fatalf("kill %d: state does not load: %v", kills, err)
		}
		s := m.State()
		if got := int(s.Serial); got != last && got != last+1 {
			t.Fatalf("kill %d: serial %d, want %d (last reported) or %d (in flight)", kills, got, last, last+1)
		}
		for _, o := range s.Objects {
			if n := attrN(t, o); n != int(s.Serial) {
				t.Fatalf("kill %d: %s written at serial %d in a state of serial %d: a mixed version", kills, o.Addr, n, s.Serial)
			}
		}
		m.Close()
		prev = int(s.Serial)
	}
	t.Logf("%d SIGKILLs of etcd writers after a durable write; final serial %d", kills, prev)
}
