package command

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

// Workspaces are Terraform's: each has its own state under one
// configuration. The default's is the backend's own; with the local
// backend, workspace NAME's is rdmaform.rdmastate.d/NAME/rdmaform.rdmastate
// beside the configuration (as terraform.tfstate.d/NAME/); with etcd, under
// PREFIX/env:/NAME/. The selected one is recorded in
// .rdmaform/environment; RDMAFORM_WORKSPACE overrides it.
const (
	workspaceFile   = "environment"
	workspaceEnv    = "RDMAFORM_WORKSPACE"
	localWorkspaces = state.DefaultPath + ".d"
)

// validWorkspace is what a workspace name may be: it becomes a directory,
// an etcd key segment and part of the agent namespace.
var validWorkspace = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$`)

func checkWorkspaceName(name string) error {
	if !validWorkspace.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("%q is not a valid workspace name: use 1 to 64 letters, digits, \"_\", \"-\" and \".\", not starting with \".\"", name)
	}
	return nil
}

// currentWorkspace is the selected workspace of the working directory
// dir: RDMAFORM_WORKSPACE, else the recorded one, else the default.
func currentWorkspace(dir string) (string, error) {
	if name := os.Getenv(workspaceEnv); name != "" {
		if err := checkWorkspaceName(name); err != nil {
			return "", fmt.Errorf("%s: %w", workspaceEnv, err)
		}
		return name, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, backendDir, workspaceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return config.DefaultWorkspace, nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(string(data))
	if err := checkWorkspaceName(name); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, backendDir, workspaceFile), err)
	}
	return name, nil
}

// workspaceOrDefault is currentWorkspace, or the default when it cannot
// be read (commands that open the state report why).
func workspaceOrDefault(dir string) string {
	name, err := currentWorkspace(dir)
	if err != nil {
		return config.DefaultWorkspace
	}
	return name
}

// recordWorkspace selects name in dir (the default by removing the record).
func recordWorkspace(dir, name string) error {
	p := filepath.Join(dir, backendDir, workspaceFile)
	if name == config.DefaultWorkspace {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, backendDir), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(name+"\n"), 0o600)
}

// localWorkspaceDir is where the local backend keeps workspace name.
func localWorkspaceDir(dir, name string) string {
	return filepath.Join(dir, localWorkspaces, name)
}

func (b *backendConfig) etcdOptions(dir string) (state.EtcdOptions, error) {
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	o := state.EtcdOptions{Endpoints: b.Endpoints, Prefix: b.Prefix, CAFile: rel(b.CAFile), CertFile: rel(b.CertFile), KeyFile: rel(b.KeyFile)}
	// The environment's credentials are not part of b: they stand in for
	// unset arguments each time the backend is opened, as in Terraform.
	o.Username, o.Password = config.EtcdCredentials(b.Username, b.Password)
	if b.DialTimeout != "" {
		d, err := time.ParseDuration(b.DialTimeout)
		if err != nil {
			return o, fmt.Errorf("etcd backend: dial_timeout: %v", err)
		}
		o.DialTimeout = d
	}
	return o, nil
}

// withEtcd runs f on a connection to b's cluster at its base prefix.
func (b *backendConfig) withEtcd(dir string, f func(*state.Etcd) error) error {
	o, err := b.etcdOptions(dir)
	if err != nil {
		return err
	}
	e, err := state.NewEtcd(context.Background(), o)
	if err != nil {
		return err
	}
	defer e.Close()
	return f(e)
}

// workspaces lists b's workspaces, the default first, then by name.
func (b *backendConfig) workspaces(dir string) ([]string, error) {
	var names []string
	switch b.Type {
	case "local":
		entries, err := os.ReadDir(filepath.Join(dir, localWorkspaces))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && checkWorkspaceName(e.Name()) == nil {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
	case "etcd":
		err := b.withEtcd(dir, func(e *state.Etcd) error {
			var err error
			names, err = e.Workspaces()
			return err
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown backend type %q", b.Type)
	}
	return append([]string{config.DefaultWorkspace}, names...), nil
}

// hasWorkspace reports whether b has workspace name.
func (b *backendConfig) hasWorkspace(dir, name string) (bool, error) {
	if name == config.DefaultWorkspace {
		return true, nil
	}
	names, err := b.workspaces(dir)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

// createWorkspace makes workspace name, with no state yet.
func (b *backendConfig) createWorkspace(dir, name string) error {
	switch b.Type {
	case "local":
		return os.MkdirAll(localWorkspaceDir(dir, name), 0o755)
	case "etcd":
		return b.withEtcd(dir, func(e *state.Etcd) error { return e.CreateWorkspace(name) })
	}
	return fmt.Errorf("unknown backend type %q", b.Type)
}

// deleteWorkspace removes workspace name and its state.
func (b *backendConfig) deleteWorkspace(dir, name string) error {
	switch b.Type {
	case "local":
		return os.RemoveAll(localWorkspaceDir(dir, name))
	case "etcd":
		return b.withEtcd(dir, func(e *state.Etcd) error { return e.DeleteWorkspace(name) })
	}
	return fmt.Errorf("unknown backend type %q", b.Type)
}

// newConfigLoader is a configuration loader for the working directory's
// selected workspace (rdmaform.workspace); startDir is the Meta's, path.cwd.
func newConfigLoader(startDir string) *config.Loader {
	l := config.NewLoader()
	l.Workspace = workspaceOrDefault(".")
	l.StartDir = startDir
	return l
}
