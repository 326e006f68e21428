package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") {
			continue
		}
		if strings.HasSuffix(n, HCLSuffix) || strings.HasSuffix(n, JSONSuffix) {
			names = append(names, filepath.Join(dir, n))
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   "The directory " + dir + " contains no " + HCLSuffix + " or " + JSONSuffix + " files.",
		}}
	}
	return names, nil
}

// parseDir parses every configuration file of dir; files with syntax
// errors are left out of the result but their diagnostics are returned.
// Files are read and parsed concurrently, then registered with the
// Loader's parser in name order.
func (l *Loader) parseDir(dir string) ([]*hcl.File, hcl.Diagnostics) {
	names, diags := configFiles(dir)
	type result struct {
		file  *hcl.File
		diags hcl.Diagnostics
	}
	results := make([]result, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i].file, results[i].diags = parseFile(n)
		}()
	}
	wg.Wait()
	var files []*hcl.File
	for i, r := range results {
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

// parseFile reads and parses one file in HCL native or JSON syntax by its
// suffix. It touches no shared state.
func parseFile(path string) (*hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read file",
			Detail:   fmt.Sprintf("The configuration file %q could not be read: %v.", path, err),
		}}
	}
	if strings.HasSuffix(path, ".json") {
		return hcljson.Parse(src, path)
	}
	return hclsyntax.ParseConfig(src, path, hcl.InitialPos)
}
