package tui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// cellWidth and plainASCII look at eight bytes at a time: each byte
// value, at each place of strings of up to three words, and a borrow
// from a byte below ' ' next to bytes just above it, is taken as a byte
// at a time takes it.
func TestWidthsWordAtATime(t *testing.T) {
	slowWidth := func(s string) int {
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf || s[i] < ' ' {
				return ansi.StringWidth(s)
			}
		}
		return len(s)
	}
	slowPlain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < ' ' || s[i] > '~' {
				return false
			}
		}
		return true
	}
	check := func(s string) {
		t.Helper()
		if got, want := cellWidth(s), slowWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, want %d", s, got, want)
		}
		if got, want := plainASCII(s), slowPlain(s); got != want {
			t.Fatalf("plainASCII(%q) = %v, want %v", s, got, want)
		}
	}
	for n := 1; n <= 24; n++ {
		for at := range n {
			for b := range 256 {
				s := []byte(strings.Repeat("a", n))
				s[at] = byte(b)
				check(string(s))
				if at+1 < n { // a byte below ' ' before one just above it
					s[at+1] = ' '
					check(string(s))
				}
			}
		}
	}
	check("endpoint.client[123]·x")
	check("10.77.0.1:7471\t")
}

// digits counts the digits of every power of ten, one less, and the
// largest number.
func TestDigits(t *testing.T) {
	n, want := uint64(1), 1
	for want <= 20 {
		if got := digits(n); got != want {
			t.Fatalf("digits(%d) = %d, want %d", n, got, want)
		}
		if got := digits(n - 1); n > 1 && got != want-1 {
			t.Fatalf("digits(%d) = %d, want %d", n-1, got, want-1)
		}
		if want == 20 {
			break
		}
		n, want = n*10, want+1
	}
	if got := digits(^uint64(0)); got != 20 {
		t.Fatalf("digits(%d) = %d, want 20", ^uint64(0), got)
	}
	if got := digits(0); got != 1 {
		t.Fatalf("digits(0) = %d, want 1", got)
	}
}

// hostWidth is the width of the cell hostCell builds, of a host up or
// down, plain or not.
func TestHostWidth(t *testing.T) {
	for _, host := range []string{"", `agent.host["h1"]`, "agent.höst", "plain", "agent.日本"} {
		for _, down := range []bool{false, true} {
			r := row{obj: &Object{Host: host, hostDown: down}}
			if got, want := hostWidth(&r), cellWidth(hostCell(r, time.Time{})); got != want {
				t.Errorf("hostWidth of %q (down %v) = %d, want %d", host, down, got, want)
			}
		}
	}
}
