package tui

import (
	"strings"
	"testing"
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
