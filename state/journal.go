package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The local journal, PATH.journal, is a sequence of frames:
//
//	length uint32 LE | CRC-32C of payload uint32 LE | payload (JSON)
//
// The first payload is a journalHeader naming the state the changes apply
// to (its lineage and serial); each later payload is one Change. The file
// is preallocated in journalChunk steps, so the data ends where only zeros
// follow. A batch of frames is written and then fdatasync'd once, so a
// frame cut short by a crash or a kill can only be in the last batch, none
// of which was reported durable. Replay keeps every frame that matches its
// checksum, resuming after a bad one, and says what it dropped (see
// journal_scan.go and journal_replay.go).
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
