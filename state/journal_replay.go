package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// replayJournal applies the journal, if any, to cur (a copy of read);
// changed says whether it applied any record. Every record that matches
// its checksum is replayed; what could not be is said in f.notes.
func (f *Filesystem) replayJournal(read, cur *State) (_ *State, changed bool, err error) {
	data, err := os.ReadFile(f.journalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return cur, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the journal: %w", err)
	}
	cur, scan, replayed, err := f.applyJournal(data, read, cur)
	if err != nil {
		return nil, false, err
	}
	if len(scan.lost) > 0 {
		note, damaged := f.lossNote(scan, read, cur, replayed)
		if damaged {
			// The journal is removed once folded into the state file.
			copyPath := f.journalPath + ".damaged"
			if err := writeFileAtomic(copyPath, data); err != nil {
				note += " It could not be copied aside: " + err.Error() + "."
			} else {
				note += " A copy of it is in " + copyPath + "."
			}
		}
		f.notes = append(f.notes, note)
	}
	return cur, replayed > 0, nil
}

// applyJournal applies the journal data to cur, writing nothing: scan is
// what reading it found, replayed how many records were applied (none
// when the journal was already folded into read).
func (f *Filesystem) applyJournal(data []byte, read, cur *State) (_ *State, scan journalScan, replayed int, err error) {
	scan = scanJournal(data)
	records := scan.frames
	switch {
	case len(scan.frames) == 0 && len(scan.lost) == 0:
		return cur, scan, 0, nil // created but its header never became durable
	case len(scan.lost) > 0 && scan.lost[0].off == 0: // the header is lost
		if len(records) > 0 && read == nil {
			if _, err := os.Stat(f.backupPath); err == nil {
				return nil, scan, 0, fmt.Errorf("%s: its header is damaged, so it does not say which state its %d %s belong to, and %s is missing while %s exists (was the state file removed?). Restore the state file (%s holds the version before its last write) and run the command again to replay the journal onto it; or move the journal away to go on without its records, which are then lost",
					f.journalPath, len(records), plural(len(records), "record", "records"), f.path, f.backupPath, f.backupPath)
			}
		}
	default:
		h, stale, err := f.journalBase(read, records[0].payload)
		if err != nil || stale {
			return cur, journalScan{}, 0, err
		}
		records = records[1:]
		if cur == nil {
			cur = New()
			cur.Lineage = h.Lineage
		}
	}
	if len(records) > 0 && cur == nil {
		// A journal started without a state file: the lineage its header
		// named was in no other place.
		cur = New()
	}
	for _, fr := range records {
		c, err := unmarshalChange(fr.payload)
		if err == nil {
			err = c.Apply(cur)
		}
		if err != nil {
			return nil, scan, 0, fmt.Errorf("%s: the record at byte %d: %v; move the journal away to use %s without it", f.journalPath, fr.off, err, f.path)
		}
	}
	return cur, scan, len(records), nil
}

// journalBase reads the journal's header and checks it names read (nil
// when there is no state file). stale: the journal was already folded
// into the file.
func (f *Filesystem) journalBase(read *State, payload []byte) (h journalHeader, stale bool, err error) {
	if err := json.Unmarshal(payload, &h); err != nil || h.Journal != 1 {
		return h, false, fmt.Errorf("%s: not an rdmaform journal (bad header); move it away to use %s without it", f.journalPath, f.path)
	}
	var readSerial uint64
	if read != nil {
		readSerial = read.Serial
		if read.Lineage != h.Lineage {
			return h, false, fmt.Errorf("%s belongs to a different state (lineage %s) than %s (lineage %s); move it away", f.journalPath, h.Lineage, f.path, read.Lineage)
		}
	}
	switch {
	case h.Serial < readSerial:
		return h, true, nil
	case h.Serial > readSerial:
		return h, false, fmt.Errorf("%s records changes to serial %d but %s has serial %d: the state file was replaced by an older one; restore the newer one or move the journal away", f.journalPath, h.Serial, f.path, readSerial)
	}
	return h, false, nil
}

// lossNote says what of the journal was not replayed and why; damaged:
// some of it was damaged on disk, not only cut short by an interrupted
// write.
func (f *Filesystem) lossNote(scan journalScan, read, cur *State, replayed int) (note string, damaged bool) {
	var parts []string
	// lostDone: records apply may have reported done were dropped;
	// lostUndone: only a change it had not reported done was.
	lostDone, lostUndone := false, false
	for i, l := range scan.lost {
		where := fmt.Sprintf("%d bytes at offset %d", l.n, l.off)
		last := i == len(scan.lost)-1 && (len(scan.frames) == 0 || scan.frames[len(scan.frames)-1].off < l.off)
		switch {
		case l.off == 0 && replayed == 0:
			damaged = damaged || !l.torn
			if l.torn && last {
				parts = append(parts, fmt.Sprintf("its first write was interrupted (%s): apply had reported no change recorded", where))
			} else {
				parts = append(parts, fmt.Sprintf("it holds no intact record: %s, its header included, do not match their checksums, and what they recorded is lost", where))
				lostDone = true
			}
		case l.off == 0:
			damaged = true
			base := fmt.Sprintf("a new state (lineage %s), as the journal was started without a state file", cur.Lineage)
			if read != nil {
				base = fmt.Sprintf("%s (lineage %s, serial %d), the state a journal is started from (one already folded into it changes nothing when replayed again), unless that file was replaced since", f.path, read.Lineage, read.Serial)
			}
			parts = append(parts, fmt.Sprintf("its header (%s) does not match its checksum, so it does not say which state the records belong to; the records, each whole by its own checksum, were replayed onto %s", where, base))
		case l.torn && last:
			lostUndone = true
			parts = append(parts, fmt.Sprintf("its last write was interrupted (rdmaform or the machine stopped while apply recorded a change): the %s hold no whole record and were dropped, a change apply had not reported done", where))
		case l.torn:
			lostUndone = true
			parts = append(parts, fmt.Sprintf("%s were never written whole (a write a crash interrupted, not reported done) and were dropped; the records after them were replayed", where))
		case last:
			damaged, lostDone = true, true
			parts = append(parts, l.damage(true)+", and dropped")
		default:
			damaged, lostDone = true, true
			parts = append(parts, l.damage(false)+"; skipped, and the records after were replayed")
		}
	}
	note = fmt.Sprintf("The journal %s was not replayed whole: %s. %d %s replayed.", f.journalPath, strings.Join(parts, "; "), replayed, plural(replayed, "record was", "records were"))
	if lostDone {
		note += " What the dropped records said is not in the state: \"rdmaform plan\" shows what the agent holds that the state lacks, and import blocks adopt it."
	} else if lostUndone {
		note += " If the agent made an object the state lacks, \"rdmaform plan\" shows it, and an import block adopts it."
	}
	return note, damaged
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// damage says what is wrong with a stretch damaged on disk; last: no
// intact frame follows it.
func (l journalLoss) damage(last bool) string {
	switch {
	case l.zeroStart:
		return fmt.Sprintf("the %d bytes at offset %d, where a record would start, hold neither a record nor the preallocated zeros: damaged on disk", l.n, l.off)
	case l.oneRecord && last:
		return fmt.Sprintf("the last record, at offset %d (%d bytes), does not match its checksum although it was written whole: damaged on disk after it was recorded", l.off, l.n)
	case l.oneRecord:
		return fmt.Sprintf("the record at offset %d (%d bytes) does not match its checksum: damaged on disk", l.off, l.n)
	case last:
		return fmt.Sprintf("the last %d bytes, at offset %d (one or more records), do not match their checksums although they were written whole: damaged on disk after they were recorded", l.n, l.off)
	}
	return fmt.Sprintf("the %d bytes at offset %d (one or more records) do not match their checksums: damaged on disk", l.n, l.off)
}
