package termsafe

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"endpoint.client[3]", "endpoint.client[3]"},
		{"", ""},
		{"café", "café"},
		{"日本", "日本"},
		{`endpoint.e["a\tb"]`, `endpoint.e["a\tb"]`}, // Go escapes already there stay
		{"ok\x1b]0;owned\x07", `ok\x1b]0;owned\a`},   // OSC: set the window title
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},           // CSI: clear the screen
		{"\x1b[31mred", `\x1b[31mred`},
		{"a\u009b31mb", `a\u009b31mb`}, // C1 CSI
		{"\u0085next", `\u0085next`},   // C1 NEL
		{"x\x7fy", `x\x7fy`},           // DEL
		{"\x00\x08\r", `\x00\b\r`},
		{"one\ntwo\tthree", `one\ntwo\tthree`},
		{"file\u202etxt.exe", `file\u202etxt.exe`}, // bidi override
		{"a\u2066b\u2069", `a\u2066b\u2069`},       // bidi isolates
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"\ufeffbom", `\ufeffbom`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"bad\xc3\x28", `bad\xc3(`},
		{"é\x1b日", `é\x1b日`},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		// What String returns is printed as it is: escaping it again
		// changes nothing.
		if got := String(String(c.in)); got != c.want {
			t.Errorf("String(String(%q)) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Error: rejected\n\nby\tpeer", "Error: rejected\n\nby\tpeer"},
		{"line\x1b]0;owned\x07\nnext\r", "line\\x1b]0;owned\\a\nnext\\r"},
		{"\u009b2J\u202e\xfe", `\u009b2J\u202e\xfe`},
		{"日本\ncafé", "日本\ncafé"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The bytes a terminal acts on never come out, whatever comes in.
func FuzzString(f *testing.F) {
	for _, s := range []string{"café", "\x1b]0;owned\x07", "\u009b", "\u202e", "\xff", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"String": String(s), "Text": Text(s)} {
			for _, r := range out {
				if r == 0x1b || r == 0x07 || r == 0x9b || r == '\r' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e {
					t.Fatalf("%s(%q) = %q holds %U", name, s, out, r)
				}
			}
		}
	})
}

func TestStringDoesNotAllocateForCleanText(t *testing.T) {
	s := "endpoint.client[\"café\"]"
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String allocated %v times for text with nothing to escape", n)
	}
}
