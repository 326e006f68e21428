package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzJournal reads arbitrary bytes as a journal (go test -fuzz=FuzzJournal
// ./state/; without -fuzz it runs over its seeds). Reading never panics,
// accepts no frame whose checksum does not match, accounts for every
// byte (intact frames and lost stretches, one after another, then only
// zeros), and keeps every intact frame of the prefix; replay applies
// exactly the intact records, and a loss is always said.
func FuzzJournal(f *testing.F) {
	for _, seed := range journalSeeds(f) {
		f.Add(seed)
	}
	dir := f.TempDir()
	fs := NewFilesystem(LocalOptions{Path: filepath.Join(dir, DefaultPath)})
	base := New()
	base.Lineage, base.Serial = testLineage, 2
	base.SetObject(testObject(f, "endpoint.base", 0))
	table := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		scan := scanJournal(data)
		pos, fi, li := 0, 0, 0
		for fi < len(scan.frames) || li < len(scan.lost) {
			if fi < len(scan.frames) && scan.frames[fi].off == pos {
				fr := scan.frames[fi]
				n := int(binary.LittleEndian.Uint32(data[pos:]))
				if n != len(fr.payload) || !bytes.Equal(data[pos+8:pos+8+n], fr.payload) {
					t.Fatalf("frame at %d: payload is not the %d bytes after its header", pos, n)
				}
				if crc32.Checksum(fr.payload, table) != binary.LittleEndian.Uint32(data[pos+4:]) {
					t.Fatalf("frame at %d accepted with a checksum that does not match", pos)
				}
				pos += 8 + n
				fi++
				continue
			}
			if li < len(scan.lost) && scan.lost[li].off == pos && scan.lost[li].n > 0 {
				pos += scan.lost[li].n
				li++
				continue
			}
			t.Fatalf("byte %d is accounted for by no frame and no lost stretch: frames %d/%d, lost %+v", pos, fi, len(scan.frames), scan.lost)
		}
		if pos > len(data) || lastNonZero(data[pos:]) >= 0 {
			t.Fatalf("bytes after %d are neither read nor said lost", pos)
		}
		// The prefix of intact frames, read by the simplest reader.
		for p, k := 0, 0; len(data)-p >= 8; k++ {
			n := uint64(binary.LittleEndian.Uint32(data[p:]))
			if n == 0 || n > uint64(len(data)-p-8) || crc32.Checksum(data[p+8:p+8+int(n)], table) != binary.LittleEndian.Uint32(data[p+4:]) {
				break
			}
			if k >= len(scan.frames) || scan.frames[k].off != p {
				t.Fatalf("the intact frame %d at %d of the prefix was not kept", k, p)
			}
			p += 8 + int(n)
		}
		for _, read := range []*State{nil, base} {
			s, sc, replayed, err := fs.applyJournal(data, read, read.DeepCopy())
			if err != nil {
				if !strings.Contains(err.Error(), fs.journalPath) {
					t.Fatalf("the error does not name the journal: %v", err)
				}
				continue
			}
			want := len(sc.frames) // the header lost, every frame is a record
			if len(sc.lost) == 0 || sc.lost[0].off != 0 {
				want-- // the first frame is the header
			}
			if replayed != 0 && replayed != want { // 0: already folded into read
				t.Fatalf("%d records replayed of %d intact frames", replayed, len(sc.frames))
			}
			if replayed > 0 && s == nil {
				t.Fatal("records replayed onto no state")
			}
			if len(sc.lost) > 0 {
				note, _ := fs.lossNote(sc, read, s, replayed)
				if !strings.Contains(note, fs.journalPath) || !strings.Contains(note, "at offset "+strconv.Itoa(sc.lost[0].off)) {
					t.Fatalf("the note does not say where: %s", note)
				}
			}
		}
	})
}

// journalSeeds are journals the recorder wrote (their preallocated zeros
// cut to a few), and the same damaged the ways the tests above show.
func journalSeeds(f *testing.F) [][]byte {
	path := filepath.Join(f.TempDir(), DefaultPath)
	m := NewFilesystem(LocalOptions{Path: path})
	s := New()
	s.Lineage = testLineage
	s.SetObject(testObject(f, "endpoint.old", 9))
	m.WriteState(s)
	if err := m.PersistState(); err != nil {
		f.Fatal(err)
	}
	rec, err := m.OpenRecorder()
	if err != nil {
		f.Fatal(err)
	}
	var seeds [][]byte
	snapshot := func() {
		data, err := os.ReadFile(path + ".journal")
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data[:lastNonZero(data)+1+16])
	}
	snapshot()
	out, _ := json.Marshal("10.0.0.1")
	for _, c := range []Change{
		PutObject(testObject(f, "endpoint.e[0]", 0)),
		PutObject(testObject(f, `listener.l["a"]`, 1)),
		PutOutput("addr", &Output{Value: out, Sensitive: true}),
		MoveObject(mustAddr(f, "endpoint.e[0]"), testObject(f, "endpoint.f[0]", 0)),
		DeleteObject(mustAddr(f, "endpoint.old")),
		DeleteOutput("addr"),
	} {
		if err := rec.Record(c); err != nil {
			f.Fatal(err)
		}
		snapshot()
	}
	if err := rec.Close(); err != nil {
		f.Fatal(err)
	}
	whole := seeds[len(seeds)-1]
	damaged := func(at int) []byte {
		d := bytes.Clone(whole)
		d[at] ^= 0x10
		return d
	}
	return append(seeds,
		damaged(10),            // the header
		damaged(len(whole)/2),  // a record in the middle
		damaged(len(whole)-20), // the last record
		whole[:len(whole)-40],  // cut short
		nil, []byte{1, 0, 0, 0},
	)
}
