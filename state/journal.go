package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The local journal, PATH.journal, is a sequence of frames:
//
//	length uint32 LE | CRC-32C of payload uint32 LE | payload (JSON)
//
// The first payload is a journalHeader naming the state the changes apply
// to (its lineage and serial); each later payload is one Change. The file
// is preallocated in journalChunk steps, so the data ends at the first
// zero length. A batch of frames is written and then fdatasync'd once; a
// torn or partial frame can only be in the last batch, none of which was
// reported durable, so replay stops at the first bad frame.
//
// When a Recorder closes, the changes are folded into the state file
// (serial incremented) and the journal removed. A journal whose serial is
// older than the file's was already folded (a crash between the two
// steps) and is ignored.

const journalChunk = 4 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type journalHeader struct {
	Journal int    `json:"rdmaform_journal"`
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
}

func appendFrame(buf, payload []byte) []byte {
	buf, start := openFrame(buf)
	return closeFrame(append(buf, payload...), start)
}

// openFrame appends a frame's header, to be filled in by closeFrame once
// the payload follows it; start is where the header is.
func openFrame(buf []byte) (_ []byte, start int) {
	return append(buf, 0, 0, 0, 0, 0, 0, 0, 0), len(buf)
}

func closeFrame(buf []byte, start int) []byte {
	payload := buf[start+8:]
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, crcTable))
	return buf
}

// readFrames returns the journal's intact frames. Where a frame is
// damaged, reading resumes at the next intact frame, if any (damaged
// counts such places): the records after it say what happened, and
// dropping them would lose objects the agent holds. Where none follows,
// reading stops; unreadable is how many bytes after that are not zero
// (the journal is preallocated with zeros), besides a last frame cut
// short (a write that a kill or a crash stopped, never acknowledged):
// damage, or a machine that stopped while writing out of order.
func readFrames(data []byte) (frames [][]byte, damaged, unreadable int) {
	for len(data) >= 8 {
		if p, next, ok := frameAt(data); ok {
			frames = append(frames, p)
			data = next
			continue
		}
		q := nextFrame(data)
		if q < 0 {
			break
		}
		damaged++
		data = data[q:]
	}
	torn := 0
	if len(data) >= 4 {
		if n := binary.LittleEndian.Uint32(data[0:]); n > 0 {
			torn = int(min(uint64(len(data)), 8+uint64(n)))
		}
	}
	for _, b := range data[torn:] {
		if b != 0 {
			unreadable++
		}
	}
	return frames, damaged, unreadable
}

// nextFrame is where the next intact frame after the start of data
// begins, or -1: a frame whose payload, a JSON object as every record's
// is, matches its checksum.
func nextFrame(data []byte) int {
	for q := 1; q+9 <= len(data); q++ {
		if data[q+8] != '{' {
			continue
		}
		if _, _, ok := frameAt(data[q:]); ok {
			return q
		}
	}
	return -1
}

// frameAt reads the frame at the start of data: its payload and what
// follows it, if it is intact.
func frameAt(data []byte) (payload, rest []byte, ok bool) {
	if len(data) < 8 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(data[0:])
	sum := binary.LittleEndian.Uint32(data[4:])
	if n == 0 || uint64(n) > uint64(len(data)-8) {
		return nil, nil, false
	}
	p := data[8 : 8+n]
	if crc32.Checksum(p, crcTable) != sum {
		return nil, nil, false
	}
	return p, data[8+n:], true
}

// replayJournal applies the journal, if any, to cur (a copy of read);
// changed says whether it applied any record.
func (f *Filesystem) replayJournal(read, cur *State) (_ *State, changed bool, err error) {
	data, err := os.ReadFile(f.journalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return cur, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the journal: %w", err)
	}
	frames, damaged, unreadable := readFrames(data)
	if damaged > 0 || unreadable > 0 {
		f.keepDamagedJournal(data, damaged, unreadable)
	}
	if len(frames) == 0 {
		return cur, false, nil // created but its header never became durable
	}
	var h journalHeader
	if err := json.Unmarshal(frames[0], &h); err != nil || h.Journal != 1 {
		return nil, false, fmt.Errorf("%s: not an rdmaform journal (bad header); move it away to use %s without it", f.journalPath, f.path)
	}
	var readSerial uint64
	if read != nil {
		readSerial = read.Serial
		if read.Lineage != h.Lineage {
			return nil, false, fmt.Errorf("%s belongs to a different state (lineage %s) than %s (lineage %s); move it away", f.journalPath, h.Lineage, f.path, read.Lineage)
		}
	}
	switch {
	case h.Serial < readSerial:
		return cur, false, nil // already folded into the file
	case h.Serial > readSerial:
		return nil, false, fmt.Errorf("%s records changes to serial %d but %s has serial %d: the state file was replaced by an older one; restore the newer one or move the journal away", f.journalPath, h.Serial, f.path, readSerial)
	}
	if cur == nil {
		cur = New()
		cur.Lineage = h.Lineage
	}
	for i, p := range frames[1:] {
		c, err := unmarshalChange(p)
		if err == nil {
			err = c.Apply(cur)
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: record %d: %v", f.journalPath, i+1, err)
		}
	}
	return cur, len(frames) > 1, nil
}

// keepDamagedJournal copies a journal found damaged beside it, before it
// is folded into the state file and removed, and says so in Notes.
func (f *Filesystem) keepDamagedJournal(data []byte, damaged, unreadable int) {
	copyPath := f.journalPath + ".damaged"
	kept := "a copy is in " + copyPath
	if err := writeFileAtomic(copyPath, data); err != nil {
		kept = "it could not be copied aside: " + err.Error()
	}
	var what []string
	if damaged > 0 {
		what = append(what, fmt.Sprintf("%d damaged %s skipped (the records after %s were replayed)", damaged, plural(damaged, "record was", "records were"), plural(damaged, "it", "them")))
	}
	if unreadable > 0 {
		what = append(what, fmt.Sprintf("its last %d bytes could not be read (the machine stopped while they were written, or the file is damaged)", unreadable))
	}
	f.notes = append(f.notes, fmt.Sprintf("The journal %s is damaged: %s; %s. What those records said is not in the state: \"rdmaform plan\" shows what the agent holds that the state lacks, and import blocks adopt it.", f.journalPath, strings.Join(what, "; "), kept))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// localRecorder appends changes to the journal with group commit.
type localRecorder struct {
	*groupCommit
	f     *Filesystem
	file  *os.File
	off   int64
	alloc int64
	// frames is the last batch's buffer, reused by the next (flushes
	// run one at a time, in the group commit's loop).
	frames []byte
}

// OpenRecorder folds any replayed journal into the file, then starts a new
// journal. Hold the lock while recording.
func (f *Filesystem) OpenRecorder() (Recorder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recording {
		return nil, errors.New("state: a Recorder is already open")
	}
	if f.cur == nil {
		f.cur = New()
	}
	if f.read != nil || len(f.cur.Objects)+len(f.cur.Outputs) > 0 {
		if err := f.persistLocked(); err != nil {
			return nil, err
		}
	}
	var serial uint64
	if f.read != nil {
		serial = f.read.Serial
	}
	hdr, _ := json.Marshal(journalHeader{Journal: 1, Lineage: f.cur.Lineage, Serial: serial})
	file, err := os.OpenFile(f.journalPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the journal: %w", err)
	}
	r := &localRecorder{f: f, file: file}
	if err := r.write(appendFrame(nil, hdr)); err != nil {
		file.Close()
		os.Remove(f.journalPath)
		return nil, err
	}
	if err := syncDir(filepath.Dir(f.journalPath)); err != nil {
		file.Close()
		return nil, err
	}
	f.recording = true
	r.groupCommit = newGroupCommit(r.flush)
	return r, nil
}

// write appends b at the end of the journal's data and makes it durable.
func (r *localRecorder) write(b []byte) error {
	if end := r.off + int64(len(b)); end > r.alloc {
		size := (end/journalChunk + 1) * journalChunk
		err := retryEINTR(func() error { return unix.Fallocate(int(r.file.Fd()), 0, 0, size) })
		switch {
		case errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS):
			// Some file systems (9p, some NFS) cannot preallocate: the
			// journal then grows with each write, and replay stops at its
			// end as it stops at the first zero length.
			size = math.MaxInt64
		case err != nil:
			return fmt.Errorf("growing the journal: %w", err)
		}
		r.alloc = size
	}
	if _, err := r.file.WriteAt(b, r.off); err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	if err := retryEINTR(func() error { return unix.Fdatasync(int(r.file.Fd())) }); err != nil {
		return fmt.Errorf("fdatasync of the journal: %w", err)
	}
	r.off += int64(len(b))
	return nil
}

func (r *localRecorder) flush(batch []Change) error {
	buf := r.frames[:0]
	for _, c := range batch {
		var err error
		if buf, err = c.appendFrame(buf); err != nil {
			return err
		}
	}
	r.frames = buf
	if err := r.write(buf); err != nil {
		return err
	}
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	for _, c := range batch {
		r.f.unchanged = false
		if err := c.Apply(r.f.cur); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes what is queued, writes the state file and removes the
// journal. If writing fails the journal stays and is replayed next time.
func (r *localRecorder) Close() error {
	err := r.stop()
	if cerr := r.file.Close(); err == nil {
		err = cerr
	}
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.recording = false
	if err != nil {
		return err
	}
	return r.f.persistLocked()
}

// retryEINTR repeats a system call the Go runtime's signals (preemption,
// the profiler) interrupted: fallocate on some file systems (9p in the
// test VM) returns EINTR rather than restarting.
func retryEINTR(call func() error) error {
	var err error
	for try := 0; try < 100; try++ {
		if err = call(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
	return err
}
