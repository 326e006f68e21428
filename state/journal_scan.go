package state

import (
	"encoding/binary"
	"hash/crc32"
)

// sector is the smallest unit a disk writes whole. A write interrupted by
// a crash leaves whole sectors unwritten (zeros, in a journal preallocated
// with zeros), and one a kill cut short ends at a page boundary: either way
// the first zero in the frame starts a sector, or the file ends inside the
// frame. A byte changed on disk leaves no such mark.
const sector = 512

// journalFrame is an intact frame: where it starts in the file, and its
// payload.
type journalFrame struct {
	off     int
	payload []byte
}

// journalLoss is a stretch of the journal that holds no intact frame.
type journalLoss struct {
	off, n int
	// torn: the stretch is a frame whose write was interrupted (the first
	// of its bytes missing is where a sector starts), not one damaged
	// after it was written.
	torn bool
	// oneRecord: the stretch is exactly one frame (its length field
	// still spans it), so one record was lost; otherwise one or more.
	oneRecord bool
	// zeroStart: the stretch starts with a zero length, where a record
	// would start.
	zeroStart bool
}

// journalScan is what reading a journal found: its intact frames and the
// stretches between and after them that hold none, in file order.
type journalScan struct {
	frames []journalFrame
	lost   []journalLoss
}

// scanJournal reads the journal's frames. Where a frame is damaged,
// reading resumes at the next intact frame, if any: the records after it
// say what happened, and dropping them would lose objects the agent
// holds. The data ends where only zeros follow (the journal is
// preallocated with zeros) or at the end of the file.
func scanJournal(data []byte) journalScan {
	var s journalScan
	pos := 0
	for {
		if p, ok := frameAt(data[pos:]); ok {
			s.frames = append(s.frames, journalFrame{off: pos, payload: p})
			pos += 8 + len(p)
			continue
		}
		last := lastNonZero(data)
		if last < pos {
			return s
		}
		end := last + 1
		if q := nextFrame(data[pos:]); q >= 0 {
			end = pos + q
		}
		s.lost = append(s.lost, journalLoss{
			off: pos, n: end - pos,
			torn:      looksTorn(data, pos),
			oneRecord: len(data)-pos >= 8 && uint64(pos)+8+uint64(binary.LittleEndian.Uint32(data[pos:])) == uint64(end),
			zeroStart: len(data)-pos >= 4 && binary.LittleEndian.Uint32(data[pos:]) == 0,
		})
		if end > last {
			return s
		}
		pos = end
	}
}

// looksTorn says whether the bad frame at pos is one whose write was
// interrupted: the file ends inside it, or the first zero in its payload
// (which JSON never holds) starts a sector.
func looksTorn(data []byte, pos int) bool {
	if len(data)-pos < 8 {
		return true
	}
	n := uint64(binary.LittleEndian.Uint32(data[pos:]))
	if n == 0 {
		// The frame's first sector was never written, but later ones were.
		b := min((pos/sector+1)*sector, len(data))
		return lastNonZero(data[pos:b]) < 0
	}
	end := uint64(pos) + 8 + n
	for z := pos + 8; uint64(z) < end; z++ {
		if z >= len(data) {
			return true
		}
		if data[z] == 0 {
			return z%sector == 0
		}
	}
	return false
}

func lastNonZero(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0 {
			return i
		}
	}
	return -1
}

// nextFrame is where the next intact frame after the start of data
// begins, or -1: a frame whose payload, a JSON object as every record's
// is, matches its checksum.
func nextFrame(data []byte) int {
	for q := 1; q+9 <= len(data); q++ {
		if data[q+8] != '{' {
			continue
		}
		if _, ok := frameAt(data[q:]); ok {
			return q
		}
	}
	return -1
}

// frameAt reads the frame at the start of data: its payload, if it is
// intact.
func frameAt(data []byte) (payload []byte, ok bool) {
	if len(data) < 8 {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(data[0:])
	sum := binary.LittleEndian.Uint32(data[4:])
	if n == 0 || uint64(n) > uint64(len(data)-8) {
		return nil, false
	}
	p := data[8 : 8+n]
	if crc32.Checksum(p, crcTable) != sum {
		return nil, false
	}
	return p, true
}
