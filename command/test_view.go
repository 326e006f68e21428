package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/tui/colorize"
)

// testView prints what rdmaform test does, as terraform test prints it:
// as text, or with -json as Terraform's machine-readable test messages.
type testView struct {
	out, err io.Writer
	color    bool
	json     *views.JSONView
	loader   *config.Loader // quotes the test files in diagnostics
}

func (v *testView) abstract(files []*config.TestFile) {
	if v.json == nil {
		return
	}
	abstract := map[string][]string{}
	runs := 0
	for _, f := range files {
		names := []string{}
		for _, r := range f.Runs {
			names = append(names, r.Name)
		}
		abstract[f.Path] = names
		runs += len(names)
	}
	v.json.Write("info", fmt.Sprintf("Found %d %s and %d run %s", len(files), plural(len(files), "file", "files"), runs, plural(runs, "block", "blocks")), "test_abstract", map[string]any{"test_abstract": abstract})
}

func (v *testView) file(path, progress, status string) {
	msg := map[string]string{"starting": "in progress", "teardown": "tearing down", "complete": status}[progress]
	if v.json != nil {
		f := map[string]any{"path": path, "progress": progress}
		if status != "" {
			f["status"] = status
		}
		v.json.Write("info", path+"... "+msg, "test_file", map[string]any{"test_file": f, "@testfile": path})
		return
	}
	fmt.Fprintf(v.out, "%s... %s\n", path, v.status(msg))
}

func (v *testView) run(path, name, progress, status string) {
	if v.json != nil {
		f := map[string]any{"path": path, "run": name, "progress": progress}
		msg := "in progress"
		if status != "" {
			f["status"], msg = status, status
		}
		v.json.Write("info", fmt.Sprintf("  %q... %s", name, msg), "test_run", map[string]any{"test_run": f, "@testfile": path, "@testrun": name})
		return
	}
	if progress == "complete" {
		if status == "error" {
			status = "fail" // as Terraform's human view shows an errored run
		}
		fmt.Fprintf(v.out, "  run %q... %s\n", name, v.status(status))
	}
}

// status colours pass green and fail red, as Terraform does.
func (v *testView) status(s string) string {
	c := colorize.Colorize(v.color)
	switch s {
	case "pass":
		return c.Style(s, colorize.Green)
	case "fail", "error":
		return c.Style(s, colorize.Red)
	case "skip":
		return c.Style(s, colorize.Yellow)
	}
	return s
}

// diagnostics shows a run's diagnostics, quoting l's files (a
// configuration's) or the test files.
func (v *testView) diagnostics(diags hcl.Diagnostics, l *config.Loader) {
	if len(diags) == 0 {
		return
	}
	if l == nil {
		l = v.loader
	}
	if v.json != nil {
		v.json.Diagnostics(diags, l)
		return
	}
	(&views.View{Out: v.out, Err: v.out, NoColor: !v.color}).Diagnostics(diags, l)
}

// text shows output of the commands a run ran (their errors, or with
// -verbose their plan or apply).
func (v *testView) text(s string) {
	if s == "" {
		return
	}
	if v.json != nil {
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			v.json.Log(line)
		}
		return
	}
	io.WriteString(v.out, s)
	if !strings.HasSuffix(s, "\n") {
		io.WriteString(v.out, "\n")
	}
}

// leftBehind says, loudly, what a file's teardown could not destroy.
func (v *testView) leftBehind(path, workDir string, left []string) {
	summary := fmt.Sprintf("rdmaform left these objects in the test's state after running %s; they need to be cleaned up manually", path)
	detail := fmt.Sprintf("%s\n\nThe test's state is kept in %s. Run\n    rdmaform -chdir=%s destroy\nto destroy them.", strings.Join(left, "\n"), workDir, workDir)
	if v.json != nil {
		var failed []map[string]string
		for _, a := range left {
			failed = append(failed, map[string]string{"instance": a})
		}
		v.json.Write("error", summary, "test_cleanup", map[string]any{"test_cleanup": map[string]any{"failed_resources": failed}, "@testfile": path})
	}
	v.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Failed to clean up after tests", Detail: summary + ":\n" + detail}}, nil)
}

func (v *testView) summary(passed, failed, skipped int, notCleaned bool) {
	status, word := "pass", "Success!"
	if failed > 0 || notCleaned {
		status, word = "fail", "Failure!"
	}
	line := fmt.Sprintf("%s %d passed, %d failed", word, passed, failed)
	if skipped > 0 {
		line += fmt.Sprintf(", %d skipped", skipped)
	}
	line += "."
	if v.json != nil {
		v.json.Write("info", line, "test_summary", map[string]any{"test_summary": map[string]any{"status": status, "passed": passed, "failed": failed, "errored": 0, "skipped": skipped}})
		return
	}
	c := colorize.Colorize(v.color)
	if failed > 0 || notCleaned {
		line = c.Style(line, colorize.Bold, colorize.Red)
	} else {
		line = c.Style(line, colorize.Bold, colorize.Green)
	}
	fmt.Fprintf(v.out, "\n%s\n", line)
}
