package rdmanl

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// ProcessOf names the process of the thread pid (a resource's Owner.PID
// is the thread that made it): its thread group id and its command name
// (/proc/TGID/comm). ok is false when the thread is gone or unreadable
// (another PID namespace, hidepid).
func ProcessOf(pid uint32) (tgid uint32, comm string, ok bool) {
	p := "/proc/" + strconv.FormatUint(uint64(pid), 10)
	f, err := os.Open(p + "/status")
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, found := strings.CutPrefix(s.Text(), "Tgid:"); found {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			if err != nil {
				return 0, "", false
			}
			tgid = uint32(n)
			break
		}
	}
	if tgid == 0 {
		return 0, "", false
	}
	b, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(tgid), 10) + "/comm")
	if err != nil {
		return tgid, "", true
	}
	return tgid, string(bytes.TrimSpace(b)), true
}
