package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// fit pads or truncates s to exactly width cells.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	if w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// fitRight is fit with s aligned to the right, for numbers.
func fitRight(s string, width int) string {
	w := ansi.StringWidth(s)
	if w >= width {
		return fit(s, width)
	}
	return strings.Repeat(" ", width-w) + s
}

// span formats a long duration compactly: 12s, 4m05s, 5h02m, 3d04h.
func span(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	default:
		return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
	}
}

// rtt formats a round-trip time with three significant figures at most.
func rtt(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return trimZero(fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond))) + "µs"
	case d < time.Second:
		return trimZero(fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))) + "ms"
	default:
		return trimZero(fmt.Sprintf("%.2f", d.Seconds())) + "s"
	}
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// clock formats an event time for the history: the time of day to the
// millisecond, which is what an operator correlates with logs.
func clock(t time.Time) string {
	return t.Format("15:04:05.000")
}

// device names a device port as "rxe0:1".
func device(o *Object) string {
	if o.Device == "" {
		return ""
	}
	if o.Port == 0 {
		return o.Device
	}
	return o.Device + ":" + strconv.Itoa(o.Port) // as "%s:%d", for every row measured
}

// ProbeLoss is a connection's probe loss as rdmaform status and the
// monitor show it: "3/3000", lost of all probes sent, as ping counts loss.
func ProbeLoss(lost, sent uint64) string {
	return strconv.FormatUint(lost, 10) + "/" + strconv.FormatUint(sent, 10)
}

// digits is the number of decimal digits of n.
func digits(n uint64) int {
	d := 1
	// Powers of ten compared rather than n divided: every row's counts are
	// measured on each change. 10^19 is the last below 2^64.
	for p := uint64(10); n >= p; p *= 10 {
		if d++; d == 20 {
			break
		}
	}
	return d
}

// cellWidth is s's width in cells; most cells are printable ASCII, whose
// width is their length, and the table measures every row's on each change.
func cellWidth(s string) int {
	// Eight bytes at a time, the last eight last (again, in part): a byte
	// a step was most of a batch's measuring.
	i := 0
	for ; i < len(s) && len(s) >= 8; i += 8 {
		w := word(s[min(i, len(s)-8):])
		// A byte below ' ' borrows, one from 0x80 up has its top bit:
		// either sets a top bit (a borrow only above such a byte).
		if ((w-0x2020202020202020)|w)&0x8080808080808080 != 0 {
			i = min(i, len(s)-8)
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < ' ' {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// word is the first eight bytes of s, the first lowest.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
