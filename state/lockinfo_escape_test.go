package state

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Another holder wrote the lock's info, maybe another user: shown in the
// lock error, its text is escaped.
func TestLockInfoIsEscaped(t *testing.T) {
	const osc = "\x1b]0;owned\x07"
	li := &LockInfo{ID: "id" + osc, Operation: "OperationTypeApply\u202e", Who: "mallory@h" + osc, Version: "1" + osc,
		Created: time.Unix(0, 0), Path: "/s\x9b", Info: "x" + osc, PID: 7}
	msg := (&LockError{Info: li, Err: errors.New("locked")}).Error()
	if strings.ContainsAny(msg, "\x1b\x07\u202e") || strings.Contains(msg, "\x9b") {
		t.Errorf("the lock error holds the holder's control characters:\n%q", msg)
	}
	for _, want := range []string{`Who:       mallory@h\x1b]0;owned\a`, `Operation: OperationTypeApply\u202e`, `Info:      x\x1b]0;owned\a`, `Path:      /s\x9b`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the lock error lacks %s:\n%s", want, msg)
		}
	}
}
