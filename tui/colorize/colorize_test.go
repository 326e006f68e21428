package colorize

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStyle(t *testing.T) {
	for _, c := range []struct {
		on     Colorize
		s      string
		styles []Style
		want   string
	}{
		{true, "Success!", []Style{Green, Bold}, "\x1b[32m\x1b[1mSuccess!\x1b[0m"},
		{true, "Outputs:", []Style{Bold, Green}, "\x1b[1m\x1b[32mOutputs:\x1b[0m"},
		{false, "Success!", []Style{Green, Bold}, "Success!"},
		{true, "", []Style{Red}, ""},
	} {
		if got := c.on.Style(c.s, c.styles...); got != c.want {
			t.Errorf("Colorize(%v).Style(%q) = %q, want %q", c.on, c.s, got, c.want)
		}
	}
}

// No package but this one and the monitor's (tui, drawn through lipgloss
// and its own cursor controls) writes a raw ANSI escape code, so that
// -no-color has one place to hold.
func TestNoRawEscapeCodesElsewhere(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{`\x1b[`, `\033[`, `\u001b[`, `\x1B[`}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "tui" || rel == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range codes {
			if strings.Contains(string(b), c) {
				t.Errorf("%s writes a raw escape code (%s): style through tui/colorize", rel, c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
