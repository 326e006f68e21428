package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	hcljson "github.com/hashicorp/hcl/v2/json"
)

// File name suffixes of a configuration and of variable files.
const (
	HCLSuffix      = ".rdma.hcl"
	JSONSuffix     = ".rdma.json"
	VarsFile       = "rdmaform.rdmavars"
	AutoVarsSuffix = ".auto.rdmavars"
)

// Loader reads configurations. It keeps one hclparse.Parser for its whole
// life so that every diagnostic it returns can be rendered with the source
// it points into (see WriteDiagnostics). A Loader is not safe for
// concurrent use.
type Loader struct {
	parser *hclparse.Parser

	// CoreVersion, when set, is checked against required_version.
	CoreVersion string
	// Validate selects validate mode: variables without a value are unknown
	// instead of an error, and a count or for_each that is not known is
	// checked once with unknown keys instead of being an error.
	Validate bool
	// MaxInstances bounds count and for_each per block; 0 means
	// DefaultMaxInstances.
	MaxInstances int
	// SkipPreconditions does not check the blocks' preconditions: a
	// destroy, a refresh-only plan or a graph need not meet them.
	SkipPreconditions bool
	// Ask, when set, is asked for the value of each variable that has
	// none (no input, no default), in name order, as Terraform prompts
	// on a terminal; its answer reads as a -var value. No answer (false)
	// leaves the variable without one.
	Ask func(name, description string, sensitive bool) (string, bool)
	// Asked are Ask's answers as -var options, for a saved plan to
	// record with the others.
	Asked VarArgs
	// Workspace is the selected workspace, rdmaform.workspace in
	// expressions ("" is DefaultWorkspace).
	Workspace string
	// AgentsEvaluated, when set, is called once during Load, as soon as
	// every agent block is evaluated and before the objects are, with
	// those agents when none of them was in error: a command can start
	// reaching them while the objects' blocks, the bulk of a large
	// configuration, are evaluated. It is a hint; Load's result is what
	// counts (a later error may still fail it).
	AgentsEvaluated func(agents map[string]*Agent)
	// PlanTimestamp is plantimestamp() in expressions: the time of the
	// plan (apply of a saved plan gives the plan's). Zero: when Load
	// starts; Config.PlanTimestamp says which.
	PlanTimestamp time.Time
	// Console adds the console's type() to the functions.
	Console bool
	// StartDir is path.cwd in expressions: the directory rdmaform was
	// started in, before -chdir, as Terraform's ("" is the working
	// directory).
	StartDir string
	// GenerateConfig: an import block whose target the configuration does
	// not declare is not an error but goes to ImportsToGenerate, with its
	// id evaluated (plan -generate-config-out writes their blocks).
	GenerateConfig    bool
	ImportsToGenerate []*Import
}

// cwd is path.cwd, absolute; "" if the working directory is unknown.
func (l *Loader) cwd() string {
	dir := l.StartDir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// DefaultWorkspace is the workspace every working directory starts in,
// as Terraform's.
const DefaultWorkspace = "default"

func (l *Loader) workspace() string {
	if l.Workspace == "" {
		return DefaultWorkspace
	}
	return l.Workspace
}

func (l *Loader) maxInstances() int {
	if l.MaxInstances > 0 {
		return l.MaxInstances
	}
	return DefaultMaxInstances
}

// NewLoader returns a Loader with a fresh parser.
func NewLoader() *Loader { return &Loader{parser: hclparse.NewParser()} }

// Files returns the source of every file parsed so far, keyed by the name
// used in diagnostics.
func (l *Loader) Files() map[string]*hcl.File { return l.parser.Files() }

// configFiles lists the configuration files of dir in lexical order.
func configFiles(dir string) ([]string, hcl.Diagnostics) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read configuration directory",
			Detail:   err.Error(),
		}}
	}
	var names, misnamed []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") {
			continue
		}
		switch {
		case strings.HasSuffix(n, HCLSuffix) || strings.HasSuffix(n, JSONSuffix):
			names = append(names, filepath.Join(dir, n))
		case strings.HasSuffix(n, ".tf") || strings.HasSuffix(n, ".hcl") || strings.HasSuffix(n, ".tf.json"):
			misnamed = append(misnamed, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		shown := dir
		if abs, err := filepath.Abs(dir); err == nil {
			shown = abs // "." says nothing after -chdir
		}
		detail := "The directory " + shown + " contains no " + HCLSuffix + " or " + JSONSuffix + " files."
		if len(misnamed) > 0 {
			sort.Strings(misnamed)
			detail += " It has " + strings.Join(misnamed, ", ") + ": rdmaform reads only files named *" + HCLSuffix + " (or *" + JSONSuffix + "), so that Terraform's and rdmaform's files can share a directory."
		}
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   detail,
		}}
	}
	return names, nil
}

// parseDir parses every configuration file of dir; files with syntax
// errors are left out of the result but their diagnostics are returned.
// Files are registered with the Loader's parser in name order.
func (l *Loader) parseDir(dir string) ([]*hcl.File, hcl.Diagnostics) {
	names, diags := configFiles(dir)
	srcs := make([][]byte, len(names))
	readDiags := make([]hcl.Diagnostics, len(names))
	for i, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			readDiags[i] = hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Failed to read file",
				Detail:   fmt.Sprintf("The configuration file %q could not be read: %v.", n, err),
			}}
			continue
		}
		srcs[i] = src
	}
	parsed := parseSources(names, srcs, readDiags)
	var files []*hcl.File
	for i, r := range parsed {
		diags = append(diags, r.diags...)
		if r.file != nil {
			l.parser.AddFile(names[i], r.file)
			if !r.diags.HasErrors() {
				files = append(files, r.file)
			}
		}
	}
	return files, diags
}

// parseSources parses files (names[i] has content srcs[i]) in HCL native
// or JSON syntax by the name's suffix, concurrently: big native files in
// chunks (see chunks.go), each other file in one piece. A file with a
// diagnostic in skip is not parsed; the result holds that diagnostic.
func parseSources(names []string, srcs [][]byte, skip []hcl.Diagnostics) []parsedChunk {
	out := make([]parsedChunk, len(names))
	var jobs []func()
	chunks := make([][]parsedChunk, len(names))
	for i, name := range names {
		if len(skip[i]) > 0 {
			out[i].diags = skip[i]
			continue
		}
		src := srcs[i]
		if strings.HasSuffix(name, ".json") {
			jobs = append(jobs, func() { out[i].file, out[i].diags = hcljson.Parse(src, name) })
			continue
		}
		offsets := chunkOffsets(src, chunkBytes)
		if offsets == nil {
			jobs = append(jobs, func() { out[i] = parseChunk(src, name, hcl.InitialPos, len(src)) })
			continue
		}
		chunks[i] = make([]parsedChunk, len(offsets))
		for j, start := range offsets {
			end := len(src)
			if j+1 < len(offsets) {
				end = offsets[j+1].Byte
			}
			jobs = append(jobs, func() { chunks[i][j] = parseChunk(src, name, start, end) })
		}
	}
	runConcurrently(jobs)
	jobs = jobs[:0]
	for i, cs := range chunks {
		if cs == nil {
			continue
		}
		if f, ok := mergeChunks(srcs[i], cs); ok {
			out[i].file = f
			continue
		}
		jobs = append(jobs, func() { out[i] = parseChunk(srcs[i], names[i], hcl.InitialPos, len(srcs[i])) })
	}
	runConcurrently(jobs)
	return out
}

// runConcurrently runs jobs on up to GOMAXPROCS goroutines and returns
// when all are done.
func runConcurrently(jobs []func()) {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if workers <= 1 {
		for _, job := range jobs {
			job()
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				jobs[i]()
			}
		}()
	}
	wg.Wait()
}
