// Package termsafe makes text that came from outside rdmaform safe to
// print on a terminal: object names from a configuration, a state or the
// agent, reject reasons and private data from peers, error messages that
// embed them. A terminal obeys the control characters in what it prints:
// an escape sequence in an object's name could retitle the window, move
// the cursor, rewrite lines already shown or hide text; a bidi override
// (U+202E) reorders what follows. Every human output passes such text
// through [String] or [Text]; JSON output needs neither (encoding/json
// escapes control characters).
//
// Printable characters stay as they are, non-ASCII letters included
// ("café", "日本"). The others are written as Go writes them in a quoted
// string, so that they are visible and can be told apart: ESC as \x1b,
// a newline as \n, U+009B as \u009b, U+202E as \u202e, and a byte that is
// not UTF-8 as \xff. A backslash is left alone, as names quoted by the
// configuration already hold Go escapes (endpoint.e["a\tb"]).
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String is s with every character that is not printable (unicode.IsPrint:
// letters, marks, numbers, punctuation, symbols and the ASCII space)
// escaped, newlines and tabs included: for one line or one table cell.
func String(s string) string { return escape(s, false) }

// Text is String for text of several lines, such as an error message: it
// keeps newlines and tabs.
func Text(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := firstUnsafe(s, lines)
	if i == len(s) {
		return s // the common case, without allocating
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case keep(r, lines):
			b.WriteString(s[i : i+n])
		default:
			// QuoteRune's escape, less its quotes: \x1b, \n, \u202e.
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

const hex = "0123456789abcdef"

// firstUnsafe is the index of s's first byte to escape, len(s) if none.
func firstUnsafe(s string, lines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				if !lines || (c != '\n' && c != '\t') {
					return i
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func keep(r rune, lines bool) bool {
	return unicode.IsPrint(r) || lines && (r == '\n' || r == '\t')
}
