package state

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testLineage = "8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11"

// journalOf is a journal recording endpoint.e[0] .. e[n-1], one record
// each, against a state of serial 0, then zeros as preallocation leaves;
// at[i] is where record i's payload starts.
func journalOf(t *testing.T, n int) (data []byte, at []int) {
	return journalAt(t, n, 0)
}

func journalAt(t *testing.T, n int, serial uint64) (data []byte, at []int) {
	hdr, _ := json.Marshal(journalHeader{Journal: 1, Lineage: testLineage, Serial: serial})
	data = appendFrame(nil, hdr)
	for i := range n {
		at = append(at, len(data)+8)
		var err error
		if data, err = PutObject(testObject(t, "endpoint.e["+strconv.Itoa(i)+"]", i)).appendFrame(data); err != nil {
			t.Fatal(err)
		}
	}
	return append(data, make([]byte, 4096)...), at
}

// replayed replays journal in a directory holding the state files given
// (name relative to the state file: "" for the state, ".backup"), and
// returns the addresses the state then holds.
func replayed(t *testing.T, journal []byte, files ...map[string][]byte) (*Filesystem, []string) {
	t.Helper()
	f, err := tryReplay(t, journal, files...)
	if err != nil {
		t.Fatal(err)
	}
	return f, addresses(f.State())
}

func tryReplay(t *testing.T, journal []byte, files ...map[string][]byte) (*Filesystem, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rdmaform.rdmastate")
	f := NewFilesystem(LocalOptions{Path: path})
	if err := os.WriteFile(f.journalPath, journal, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, m := range files {
		for suffix, data := range m {
			if err := os.WriteFile(path+suffix, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f, f.RefreshState()
}

func addresses(s *State) []string {
	var got []string
	if s != nil {
		for _, a := range s.Addresses() {
			got = append(got, a.String())
		}
	}
	return got
}

// stateFile is a state document of the given serial holding e[0..n).
func stateFile(t *testing.T, serial uint64, n int) []byte {
	s := New()
	s.Lineage, s.Serial = testLineage, serial
	for i := range n {
		s.SetObject(testObject(t, "endpoint.e["+strconv.Itoa(i)+"]", i))
	}
	data, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func es(n int, skip ...int) string {
	var s []string
	for i := range n {
		if !containsInt(skip, i) {
			s = append(s, "endpoint.e["+strconv.Itoa(i)+"]")
		}
	}
	return strings.Join(s, " ")
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func oneNote(t *testing.T, f *Filesystem, want ...string) string {
	t.Helper()
	notes := f.Notes()
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one", notes)
	}
	t.Log(notes[0])
	for _, w := range want {
		if !strings.Contains(notes[0], w) {
			t.Errorf("the note does not say %q:\n%s", w, notes[0])
		}
	}
	return notes[0]
}

func keptCopy(t *testing.T, f *Filesystem, data []byte) {
	t.Helper()
	if kept, err := os.ReadFile(f.journalPath + ".damaged"); err != nil || string(kept) != string(data) {
		t.Errorf("the copy of the damaged journal: %v", err)
	}
}

// A journal an apply left (killed, or the machine stopped) replays whole,
// and says nothing.
func TestIntactJournalReplaysWithoutNotes(t *testing.T) {
	data, _ := journalOf(t, 5)
	f, got := replayed(t, data)
	if len(got) != 5 || len(f.Notes()) != 0 {
		t.Fatalf("replayed %v, notes %v", got, f.Notes())
	}
}

// A damaged record in the middle is skipped, not everything after it:
// the records after it are objects the agent holds. The user is told
// where and how much, and a copy of the journal kept.
func TestDamagedJournalRecordIsSkippedAndSaid(t *testing.T) {
	data, at := journalOf(t, 5)
	data[at[1]+3] ^= 0xff
	f, got := replayed(t, data)
	if strings.Join(got, " ") != es(5, 1) {
		t.Fatalf("replayed %v", got)
	}
	oneNote(t, f, f.journalPath, fmt.Sprintf("the record at offset %d (%d bytes) does not match its checksum", at[1]-8, at[2]-at[1]),
		"4 records were replayed", f.journalPath+".damaged", "not in the state")
	keptCopy(t, f, data)
}

// A damaged frame header (its length wrong) does not hide the records
// after it either.
func TestDamagedFrameLengthIsSkipped(t *testing.T) {
	data, at := journalOf(t, 5)
	data[at[1]-8] ^= 0x40 // record 1's length
	f, got := replayed(t, data)
	if strings.Join(got, " ") != es(5, 1) {
		t.Fatalf("replayed %v", got)
	}
	oneNote(t, f, fmt.Sprintf("bytes at offset %d (one or more records) do not match their checksums", at[1]-8))
}

// The last record, written whole and damaged since, is damage, not a torn
// write: said as such, and the journal kept.
func TestDamagedLastRecordIsSaid(t *testing.T) {
	data, at := journalOf(t, 5)
	data[at[4]+20] ^= 0x01
	f, got := replayed(t, data)
	if strings.Join(got, " ") != es(4) {
		t.Fatalf("replayed %v", got)
	}
	n := oneNote(t, f, fmt.Sprintf("the last record, at offset %d (%d bytes), does not match its checksum although it was written whole", at[4]-8, len(data)-4096-(at[4]-8)),
		"4 records were replayed", f.journalPath+".damaged")
	if strings.Contains(n, "interrupted") {
		t.Errorf("damage said as an interrupted write: %s", n)
	}
	keptCopy(t, f, data)
}

// tornAt is a journal of records whose last record's payload spans a
// sector boundary, and that boundary.
func tornAt(t *testing.T) (data []byte, at []int, n, boundary int) {
	for n = 1; ; n++ {
		data, at = journalOf(t, n)
		end := len(data) - 4096
		if b := (at[n-1]/sector + 1) * sector; b < end {
			return data, at, n, b
		}
	}
}

// A last write interrupted part way (whole sectors of it never written)
// is no damage but is said: the change apply was recording is not in the
// state, though the agent may hold its object.
func TestTornLastFrameIsSaid(t *testing.T) {
	data, _, n, b := tornAt(t)
	torn := append([]byte(nil), data...)
	clear(torn[b:]) // the sectors after b never made it
	f, got := replayed(t, torn)
	if strings.Join(got, " ") != es(n-1) {
		t.Fatalf("replayed %v", got)
	}
	note := oneNote(t, f, f.journalPath, "its last write was interrupted", fmt.Sprintf("%d %s replayed", n-1, plural(n-1, "record was", "records were")))
	if strings.Contains(note, "checksum") {
		t.Errorf("an interrupted write said as damage: %s", note)
	}
	if _, err := os.Stat(f.journalPath + ".damaged"); err == nil {
		t.Error("a journal whose last write was interrupted is copied as damaged")
	}
}

// A journal cut short (a file system without preallocation ends where the
// write stopped) is an interrupted write too, wherever it ends.
func TestTruncatedJournalIsSaid(t *testing.T) {
	data, at := journalOf(t, 4)
	for _, cut := range []int{at[3] + 10, at[3] - 5, len(data) - 4096 - 1} {
		f, got := replayed(t, data[:cut])
		if strings.Join(got, " ") != es(3) {
			t.Fatalf("cut at %d: replayed %v", cut, got)
		}
		// The bytes dropped end with the last that is not zero.
		n := lastNonZero(data[:cut]) + 1 - (at[3] - 8)
		oneNote(t, f, fmt.Sprintf("its last write was interrupted (rdmaform or the machine stopped while apply recorded a change): the %d bytes at offset %d hold no whole record", n, at[3]-8))
	}
}

// Bytes after the last intact record that are neither a record nor the
// preallocation's zeros are said.
func TestUnreadableJournalTailIsSaid(t *testing.T) {
	data, _ := journalOf(t, 3)
	end := len(data) - 4096
	if end+11 > (end/sector+1)*sector {
		t.Fatal("bad fixture: the garbage must be in the sector where the next record would start")
	}
	copy(data[end+4:], "garbage")
	f, got := replayed(t, data)
	if len(got) != 3 {
		t.Fatalf("replayed %v", got)
	}
	oneNote(t, f, fmt.Sprintf("the 11 bytes at offset %d, where a record would start, hold neither a record nor the preallocated zeros", end))
}

// A damaged header does not cost the records after it, each whole by its
// own checksum: they apply to the state file the journal was started
// from, whose lineage and serial the header repeated.
func TestDamagedJournalHeaderKeepsTheRecords(t *testing.T) {
	data, _ := journalAt(t, 4, 7)
	data[12] ^= 0x20 // inside the header's JSON
	f, got := replayed(t, data, map[string][]byte{"": stateFile(t, 7, 0)})
	if strings.Join(got, " ") != es(4) {
		t.Fatalf("replayed %v", got)
	}
	if s := f.State(); s.Lineage != testLineage {
		t.Errorf("lineage %s", s.Lineage)
	}
	oneNote(t, f, f.journalPath, "its header (", "does not match its checksum", "lineage "+testLineage+", serial 7", "4 records were replayed", f.journalPath+".damaged")
	keptCopy(t, f, data)
	if err := f.PersistState(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.journalPath); !os.IsNotExist(err) {
		t.Errorf("the journal folded into the state stays: %v", err)
	}
}

// A journal already folded into the state file (a crash before its
// removal) changes nothing when its header is lost and it is replayed.
func TestDamagedHeaderOfFoldedJournalChangesNothing(t *testing.T) {
	data, _ := journalAt(t, 4, 7)
	data[12] ^= 0x20
	folded := stateFile(t, 8, 4)
	f, got := replayed(t, data, map[string][]byte{"": folded})
	if strings.Join(got, " ") != es(4) {
		t.Fatalf("replayed %v", got)
	}
	if err := f.PersistState(); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(f.path); string(now) != string(folded) {
		t.Errorf("the state file changed:\n%s", now)
	}
}

// Without a state file the records make a new state; but with a backup
// and no state file the journal may be of a state that was removed:
// refused, saying what is lost and how to recover.
func TestDamagedHeaderWithoutStateFile(t *testing.T) {
	data, _ := journalAt(t, 3, 0)
	data[12] ^= 0x20
	f, got := replayed(t, data)
	if strings.Join(got, " ") != es(3) {
		t.Fatalf("replayed %v", got)
	}
	oneNote(t, f, "a new state (lineage ", "3 records were replayed")

	_, err := tryReplay(t, data, map[string][]byte{".backup": stateFile(t, 2, 1)})
	if err == nil || !strings.Contains(err.Error(), "its header is damaged, so it does not say which state its 3 records belong to") ||
		!strings.Contains(err.Error(), "Restore the state file") || !strings.Contains(err.Error(), "move the journal away") {
		t.Fatalf("with a backup and no state file: %v", err)
	}
}

// Whichever byte of a journal is flipped, every record it did not touch
// is replayed, the touched one is not, and the loss is found (and so
// said, as the tests above show).
func TestEveryByteFlipKeepsTheWholeRecords(t *testing.T) {
	data, at := journalAt(t, 4, 3)
	end := len(data) - 4096
	f := NewFilesystem(LocalOptions{Path: filepath.Join(t.TempDir(), DefaultPath)})
	read, err := Decode(stateFile(t, 3, 0), "state")
	if err != nil {
		t.Fatal(err)
	}
	for i := range end + 16 {
		flipped := append([]byte(nil), data...)
		flipped[i] ^= 1 << (i % 8)
		s, scan, _, err := f.applyJournal(flipped, read, read.DeepCopy())
		if err != nil {
			t.Fatalf("flip at %d: %v", i, err)
		}
		hit := -1
		for r := range at {
			if i >= at[r]-8 && (r == len(at)-1 && i < end || r < len(at)-1 && i < at[r+1]-8) {
				hit = r
			}
		}
		if got := strings.Join(addresses(s), " "); got != es(4, hit) {
			t.Fatalf("flip at %d (record %d): replayed %v", i, hit, got)
		}
		if len(scan.lost) != 1 || scan.lost[0].torn {
			t.Fatalf("flip at %d: found %+v", i, scan.lost)
		}
	}
}

// Cut anywhere, a journal replays every record before the cut.
func TestEveryCutKeepsTheRecordsBefore(t *testing.T) {
	data, at := journalAt(t, 4, 0)
	end := len(data) - 4096
	for cut := range end + 1 {
		frames := scanJournal(data[:cut]).frames
		whole := 0
		for r := range at {
			if at[r]-8+int(binary.LittleEndian.Uint32(data[at[r]-8:]))+8 <= cut {
				whole++
			}
		}
		if cut >= at[0]-8 && len(frames) != whole+1 {
			t.Fatalf("cut at %d: %d frames, want the header and %d records", cut, len(frames), whole)
		}
	}
}
