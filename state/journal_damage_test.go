package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// journalOf is a journal recording endpoint.e[0] .. e[n-1], one record
// each, then zeros as preallocation leaves; at[i] is where record i's
// payload starts.
func journalOf(t *testing.T, n int) (data []byte, at []int) {
	hdr, _ := json.Marshal(journalHeader{Journal: 1, Lineage: "8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11"})
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

func replayed(t *testing.T, journal []byte) (*Filesystem, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rdmaform.rdmastate")
	f := NewFilesystem(LocalOptions{Path: path})
	if err := os.WriteFile(f.journalPath, journal, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.RefreshState(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range f.State().Addresses() {
		got = append(got, a.String())
	}
	return f, got
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
// the records after it are objects the agent holds. The user is told,
// and a copy of the journal kept.
func TestDamagedJournalRecordIsSkippedAndSaid(t *testing.T) {
	data, at := journalOf(t, 5)
	data[at[1]+3] ^= 0xff
	f, got := replayed(t, data)
	if strings.Join(got, " ") != "endpoint.e[0] endpoint.e[2] endpoint.e[3] endpoint.e[4]" {
		t.Fatalf("replayed %v", got)
	}
	notes := f.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "1 damaged record was skipped") || !strings.Contains(notes[0], f.journalPath+".damaged") {
		t.Fatalf("notes %q", notes)
	}
	if kept, err := os.ReadFile(f.journalPath + ".damaged"); err != nil || string(kept) != string(data) {
		t.Fatalf("the copy: %v", err)
	}
}

// Bytes after the last intact record that are not the preallocation's
// zeros are said too.
func TestUnreadableJournalTailIsSaid(t *testing.T) {
	data, _ := journalOf(t, 3)
	copy(data[len(data)-4096+10:], "garbage")
	f, got := replayed(t, data)
	if len(got) != 3 {
		t.Fatalf("replayed %v", got)
	}
	if notes := f.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "its last 7 bytes could not be read") {
		t.Fatalf("notes %q", notes)
	}
}

// A last frame cut short (a write a kill stopped, never acknowledged) is
// dropped without a word: it is no damage.
func TestTornLastFrameIsNoDamage(t *testing.T) {
	data, at := journalOf(t, 3)
	end := len(data) - 4096
	torn := append([]byte(nil), data[:at[2]+10]...)
	torn = append(torn, make([]byte, len(data)-len(torn))...) // the rest of the write never made it
	if len(torn) != len(data) || end <= at[2]+10 {
		t.Fatal("bad fixture")
	}
	f, got := replayed(t, torn)
	if strings.Join(got, " ") != "endpoint.e[0] endpoint.e[1]" || len(f.Notes()) != 0 {
		t.Fatalf("replayed %v, notes %q", got, f.Notes())
	}
	// Without preallocation the file just ends inside the frame.
	f, got = replayed(t, data[:at[2]+10])
	if strings.Join(got, " ") != "endpoint.e[0] endpoint.e[1]" || len(f.Notes()) != 0 {
		t.Fatalf("file cut: replayed %v, notes %q", got, f.Notes())
	}
}

// A damaged frame header (its length wrong) does not hide the records
// after it either.
func TestDamagedFrameLengthIsSkipped(t *testing.T) {
	data, at := journalOf(t, 5)
	data[at[1]-8] ^= 0x40 // record 1's length
	f, got := replayed(t, data)
	if strings.Join(got, " ") != "endpoint.e[0] endpoint.e[2] endpoint.e[3] endpoint.e[4]" || len(f.Notes()) != 1 {
		t.Fatalf("replayed %v, notes %q", got, f.Notes())
	}
}
