package config

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// The console shows a string as a heredoc only when the heredoc reads
// back as the same string.
func TestConsoleHeredocsReadBack(t *testing.T) {
	for s, want := range map[string]string{
		"a\nb\n":      "<<EOT\na\nb\nEOT",
		"a\nb":        `"a\nb"`,
		"x\nEOT\ny\n": `"x\nEOT\ny\n"`,
		"one line\n":  `"one line\n"`,
	} {
		if got := FormatConsoleValue(cty.StringVal(s)); got != want {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}
