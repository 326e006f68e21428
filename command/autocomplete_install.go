package command

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// bashCompInit lets zsh run bash's "complete -C", as Terraform's installer
// (posener/complete) writes it.
const bashCompInit = "autoload -U +X bashcompinit && bashcompinit"

// completionFile is one shell start-up file and the line that makes the
// shell ask rdmaform to complete its command lines.
type completionFile struct {
	path, line string
	zsh        bool
}

// completionFiles are the start-up files -install-autocomplete edits, as
// Terraform's: the first of bash's that exists, and ~/.zshrc if it exists.
// The home is $HOME (Terraform's installer reads the user database, so a
// temporary HOME cannot try it).
func completionFiles() ([]completionFile, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("cannot find your home directory: %v", err)
	}
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot find the path of this rdmaform binary: %v", err)
	}
	var files []completionFile
	for _, rc := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile"} {
		if p := filepath.Join(home, rc); fileExists(p) {
			files = append(files, completionFile{path: p, line: "complete -C " + bin + " rdmaform"})
			break
		}
	}
	if p := filepath.Join(home, ".zshrc"); fileExists(p) {
		files = append(files, completionFile{path: p, line: "complete -o nospace -C " + bin + " rdmaform", zsh: true})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("found none of ~/.bashrc, ~/.bash_profile, ~/.bash_login, ~/.profile or ~/.zshrc in %s: create the one your shell reads, then run rdmaform -install-autocomplete again", home)
	}
	return files, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runAutocomplete installs (or uninstalls) shell completion in every
// start-up file found; one already done (or not there) is an error, as
// Terraform's, after the others are done.
func runAutocomplete(install bool, s Meta) int {
	files, err := completionFiles()
	if err != nil {
		s.showError("Cannot set up shell completion", err.Error())
		return 1
	}
	code := 0
	for _, f := range files {
		var done bool
		if install {
			done, err = f.install()
		} else {
			done, err = f.uninstall()
		}
		switch {
		case err != nil:
			s.showError("Cannot edit "+f.path, err.Error())
			code = 1
		case !done && install:
			s.showError("Shell completion is already installed in "+f.path, "")
			code = 1
		case !done:
			s.showError("Shell completion is not installed in "+f.path, "")
			code = 1
		case install:
			fmt.Fprintf(s.Out, "Shell completion installed in %s: it works in new shells (or after: source %s).\n", f.path, f.path)
		default:
			fmt.Fprintf(s.Out, "Shell completion removed from %s.\n", f.path)
		}
	}
	return code
}

// lines are the file's lines, without their ends.
func (f completionFile) lines() ([]string, error) {
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}

// install appends the completion line (for zsh, after bashcompinit unless
// the file loads it); done is false when the line was already there.
func (f completionFile) install() (done bool, err error) {
	lines, err := f.lines()
	if err != nil {
		return false, err
	}
	if slices.Contains(lines, f.line) {
		return false, nil
	}
	add := f.line
	if f.zsh && !slices.Contains(lines, bashCompInit) {
		add = bashCompInit + "\n" + add
	}
	file, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false, err
	}
	_, err = fmt.Fprintf(file, "\n%s\n", add)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err == nil, err
}

// uninstall removes the completion line, and leaves bashcompinit, which
// other commands' completion may need, as Terraform's does; done is false
// when the line was not there.
func (f completionFile) uninstall() (done bool, err error) {
	lines, err := f.lines()
	if err != nil {
		return false, err
	}
	if !slices.Contains(lines, f.line) {
		return false, nil
	}
	var out bytes.Buffer
	for _, l := range lines {
		if l != f.line {
			out.WriteString(l + "\n")
		}
	}
	// Written in place, so that a start-up file that is a link to a
	// dotfiles repository stays one.
	return true, os.WriteFile(f.path, out.Bytes(), 0)
}
