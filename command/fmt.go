package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
)

func init() {
	register(command{Name: "fmt", Synopsis: "Reformat configuration files in the canonical style", Run: runFmt})
}

const fmtHelp = `Usage: rdmaform [global options] fmt [options] [FILE|DIR ...]

  Rewrites .rdma.hcl and .rdmavars files in the canonical style. With no
  arguments it formats the current directory; "-" formats standard input
  to standard output. As Terraform's fmt, it also unquotes an expression
  that is one interpolation ("${var.a}" becomes var.a) and turns legacy
  variable types into type constraints (type = "string" becomes string,
  list becomes list(any)). A file with syntax errors is reported and left
  untouched.

Options:
  -list=false    Do not list the files whose formatting differs.
  -write=false   Do not rewrite the files.
  -diff          Show the changes as a unified diff.
  -check         Only check: exit 3 if any file needs formatting (implies
                 -write=false).
  -recursive     Also process subdirectories.

Exit status: 0 done, 1 usage or I/O error, 2 syntax errors or a path that is
missing or not a configuration file, 3 -check found unformatted files.
`

func runFmt(args []string, s Meta) int {
	a, diags := arguments.ParseFmt(args)
	if a.Help {
		fmt.Fprint(s.Err, fmtHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, fmtHelp)
		return 1
	}
	l := config.NewLoader()
	status := 0
	changed := false
	// A file reached through several arguments (fmt -recursive a/b a) is
	// processed and listed once.
	seen := map[string]bool{}
	report := func(diagsErr bool) {
		if diagsErr && status < 2 {
			status = 2
		}
	}
	for _, p := range a.Paths {
		if p == "-" {
			src, err := io.ReadAll(s.In)
			if err != nil {
				s.showError(fmt.Sprintf("reading standard input: %v", err), "")
				return 1
			}
			out, diags := l.Format(src, "<stdin>")
			if diags.HasErrors() {
				_ = l.WriteDiagnostics(s.Err, diags, !a.View.NoColor && cfgIsTerminal(s.Err), 0)
				report(true)
				continue
			}
			if a.Diff {
				fmt.Fprint(s.Out, config.UnifiedDiff(src, out, "old/<stdin>", "new/<stdin>"))
			} else if !a.Check {
				_, _ = s.Out.Write(out)
			}
			changed = changed || !bytes.Equal(src, out)
			continue
		}
		files, err := fmtFiles(p, a.Recursive)
		if err != nil {
			// As Terraform's: a path that is missing or not a
			// configuration file is an error diagnostic, exit 2.
			s.showErrorText(err.Error())
			status = max(status, 2)
			continue
		}
		for _, f := range files {
			key := filepath.Clean(f)
			if abs, err := filepath.Abs(f); err == nil {
				key = abs
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			src, err := os.ReadFile(f)
			if err != nil {
				s.showErrorText(err.Error())
				status = max(status, 1)
				continue
			}
			out, diags := l.Format(src, f)
			if diags.HasErrors() {
				_ = l.WriteDiagnostics(s.Err, diags, !a.View.NoColor && cfgIsTerminal(s.Err), 0)
				report(true)
				continue
			}
			if bytes.Equal(src, out) {
				continue
			}
			changed = true
			if a.List {
				fmt.Fprintln(s.Out, f)
			}
			if a.Diff {
				fmt.Fprint(s.Out, config.UnifiedDiff(src, out, "old/"+f, "new/"+f))
			}
			if a.Write {
				if err := writeFileKeepMode(f, out); err != nil {
					s.showErrorText(err.Error())
					status = max(status, 1)
				}
			}
		}
	}
	if status == 0 && a.Check && changed {
		return 3
	}
	return status
}

// fmtFiles lists the files fmt handles under p: p itself if it is a file,
// else its .rdma.hcl and .rdmavars files (and its subdirectories' with
// recursive), in lexical order.
func fmtFiles(p string, recursive bool) ([]string, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missingPath(p)
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if !fmtCandidate(p) {
			return nil, fmt.Errorf("only %s and .rdmavars files can be formatted: %s", config.HCLSuffix, p)
		}
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && (!recursive || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if fmtCandidate(path) {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// missingPath is a path given to fmt that does not exist, said as
// Terraform says it (a diagnostic's summary, capitalised).
type missingPath string

func (p missingPath) Error() string { return "No file or directory at " + string(p) }

func fmtCandidate(name string) bool {
	return strings.HasSuffix(name, config.HCLSuffix) || strings.HasSuffix(name, ".rdmavars")
}

// writeFileKeepMode replaces a file's content through a temporary file
// and a rename, keeping its permissions. A symbolic link is followed: the
// file it points to is rewritten and the link stays a link.
func writeFileKeepMode(name string, data []byte) error {
	name, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
