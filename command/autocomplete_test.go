package command

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The shell runs rdmaform with COMP_LINE set (bash's "complete -C", as
// Terraform's completion): it answers the words that may come next, the
// commands first, then each command's own options.
func TestCompletionAnswers(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"rdmaform pl", []string{"plan"}},
		{"rdmaform plan -au", nil}, // plan has no -auto-approve
		{"rdmaform apply -auto", []string{"-auto-approve"}},
		{"rdmaform plan -detailed", []string{"-detailed-exitcode"}},
		{"rdmaform agent stop -so", []string{"-socket"}},
		{"rdmaform state l", []string{"list"}},
		{"rdmaform help pla", []string{"plan"}},
		{"rdmaform -install", []string{"-install-autocomplete"}},
	} {
		t.Setenv("COMP_LINE", c.line)
		t.Setenv("COMP_POINT", "")
		var out bytes.Buffer
		if !answerCompletion(&out) {
			t.Fatalf("%q: not answered", c.line)
		}
		got := strings.Fields(out.String())
		sort.Strings(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("COMP_LINE=%q: %q, want %q", c.line, got, c.want)
		}
	}
}

// Completion offers exactly the options each command's parser defines:
// every one it offers is accepted.
func TestCompletionOffersWhatCommandsAccept(t *testing.T) {
	tree := completionTree()
	for _, cmd := range everyCommand() {
		words := strings.Fields(cmd)
		c := tree.Sub[words[0]]
		if len(words) == 2 {
			c = c.Sub[words[1]]
		}
		if len(c.Flags) == 0 {
			t.Errorf("rdmaform %s: no options to complete", cmd)
		}
		for f := range c.Flags {
			_, _, errs := runCLI(append(words, f+"=x", "-help")...)
			if strings.Contains(errs, "flag provided but not defined") {
				t.Errorf("rdmaform %s: completion offers %s, which it does not accept", cmd, f)
			}
		}
	}
	if os.Getenv("COMP_LINE") != "" {
		t.Fatal("COMP_LINE is set in the test's environment")
	}
}

// -install-autocomplete writes Terraform's lines into ~/.bashrc and
// ~/.zshrc, says so when they are already there, and
// -uninstall-autocomplete removes them.
func TestAutocompleteInstallUninstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	bashrc, zshrc := filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshrc")
	writeRC(t, bashrc, "alias ll='ls -l'\n")
	writeRC(t, zshrc, "setopt autocd\n")
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("-install-autocomplete")
	if code != 0 || errs != "" || !strings.Contains(out, "installed in "+bashrc) || !strings.Contains(out, "installed in "+zshrc) {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	if got, want := readRC(t, bashrc), "alias ll='ls -l'\n\ncomplete -C "+bin+" rdmaform\n"; got != want {
		t.Errorf(".bashrc:\n%s\nwant\n%s", got, want)
	}
	if got, want := readRC(t, zshrc), "setopt autocd\n\nautoload -U +X bashcompinit && bashcompinit\ncomplete -o nospace -C "+bin+" rdmaform\n"; got != want {
		t.Errorf(".zshrc:\n%s\nwant\n%s", got, want)
	}

	code, _, errs = runCLI("-install-autocomplete")
	if code != 1 || !strings.Contains(errs, "Shell completion is already installed in "+bashrc) || !strings.Contains(errs, "already installed in "+zshrc) {
		t.Errorf("second install: exit %d\n%s", code, errs)
	}
	if strings.Count(readRC(t, bashrc), "complete -C") != 1 {
		t.Errorf("second install changed .bashrc:\n%s", readRC(t, bashrc))
	}

	code, out, errs = runCLI("-uninstall-autocomplete")
	if code != 0 || errs != "" || !strings.Contains(out, "removed from "+bashrc) {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errs)
	}
	if got, want := readRC(t, bashrc), "alias ll='ls -l'\n\n"; got != want {
		t.Errorf(".bashrc after uninstall:\n%q\nwant\n%q", got, want)
	}
	// bashcompinit stays: other commands' completion may use it.
	if got, want := readRC(t, zshrc), "setopt autocd\n\nautoload -U +X bashcompinit && bashcompinit\n"; got != want {
		t.Errorf(".zshrc after uninstall:\n%q\nwant\n%q", got, want)
	}
	code, _, errs = runCLI("-uninstall-autocomplete")
	if code != 1 || !strings.Contains(errs, "Shell completion is not installed in "+bashrc) {
		t.Errorf("second uninstall: exit %d\n%s", code, errs)
	}
	// A second install after an uninstall does not add bashcompinit again.
	if code, _, errs := runCLI("-install-autocomplete"); code != 0 || strings.Count(readRC(t, zshrc), "bashcompinit") != 2 {
		t.Errorf("install again: exit %d\n%s\n.zshrc:\n%s", code, errs, readRC(t, zshrc))
	}
}

func TestAutocompleteInstallWithoutStartupFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	code, _, errs := runCLI("-install-autocomplete")
	if code != 1 || !strings.Contains(errs, "found none of ~/.bashrc") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("files created in HOME: %v", entries)
	}
}

func writeRC(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readRC(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
