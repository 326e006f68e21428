package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

// backendDir holds what `rdmaform init` recorded about the working
// directory; backendFile is the backend state was last initialised with, so
// that a changed backend block is noticed and `init -migrate-state` knows
// where to move state from.
const (
	backendDir  = ".rdmaform"
	backendFile = "backend.json"
	// backendSecretsFile keeps the etcd password init was given, apart
	// from backend.json, so that later commands can use it: see
	// writeBackendRecord.
	backendSecretsFile = "backend-secrets.json"
)

// backendConfig is a backend as configured, and as recorded in
// .rdmaform/backend.json:
//
//	{"version": 1, "backend": {"type": "etcd", "endpoints": [...], "prefix": "..."}}
//
// It is the backend block with init's -backend-config arguments merged
// in; the credentials in the environment (ETCDV3_USERNAME and
// ETCDV3_PASSWORD) are not part of it: they are read by each command as
// it opens the backend. Paths are as written in the configuration,
// relative to the configuration directory.
type backendConfig struct {
	Type        string   `json:"type"`
	Path        string   `json:"path,omitempty"`
	Endpoints   []string `json:"endpoints,omitempty"`
	Prefix      string   `json:"prefix,omitempty"`
	CAFile      string   `json:"ca_file,omitempty"`
	CertFile    string   `json:"cert_file,omitempty"`
	KeyFile     string   `json:"key_file,omitempty"`
	DialTimeout string   `json:"dial_timeout,omitempty"`
	Username    string   `json:"username,omitempty"`
	// Password is never in backend.json, never printed (String leaves it
	// out): backend-secrets.json keeps it.
	Password string `json:"-"`
	// PasswordSet says in backend.json that there is a password in
	// backend-secrets.json; only the record has it.
	PasswordSet bool `json:"password_set,omitempty"`
}

// backendRecord is the content of .rdmaform/backend.json.
type backendRecord struct {
	Version int            `json:"version"`
	Backend *backendConfig `json:"backend"`
	// BackendConfig are the values init's -backend-config gave (strings,
	// or lists of strings), which later commands merge over the backend
	// block as init did, secret ones left out: BackendConfigSecrets names
	// those, whose values are in backend-secrets.json.
	BackendConfig        map[string]any `json:"backend_config,omitempty"`
	BackendConfigSecrets []string       `json:"backend_config_secrets,omitempty"`
}

// backendSecrets is the content of .rdmaform/backend-secrets.json.
type backendSecrets struct {
	Password string `json:"password,omitempty"`
}

func (b *backendConfig) String() string {
	if b.Type == "etcd" {
		eps := strings.Join(b.Endpoints, ",")
		if eps == "" {
			eps = "no endpoints"
		}
		user := ""
		if b.Username != "" {
			user = fmt.Sprintf(", user %q", b.Username)
		}
		return fmt.Sprintf("etcd (%s, prefix %q%s)", eps, b.Prefix, user)
	}
	return fmt.Sprintf("local (%s)", b.statePath())
}

func (b *backendConfig) statePath() string {
	if b.Path == "" {
		return state.DefaultPath
	}
	return b.Path
}

// equal says whether b and o are the same backend, credentials included
// (PasswordSet, which only a record has, aside).
func (b *backendConfig) equal(o *backendConfig) bool { return len(b.changes(o)) == 0 }

// changes names the settings that differ between b and o, as in the
// record (password for the password): for messages that cannot show the
// values.
func (b *backendConfig) changes(o *backendConfig) []string {
	var names []string
	x, y := reflect.ValueOf(b).Elem(), reflect.ValueOf(o).Elem()
	for i := 0; i < x.NumField(); i++ {
		f := x.Type().Field(i)
		if f.Name == "PasswordSet" || reflect.DeepEqual(x.Field(i).Interface(), y.Field(i).Interface()) {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
	}
	return names
}

// sameState says whether b keeps its state where o does: the same
// backend type, file, cluster and prefix, whatever the credentials.
func (b *backendConfig) sameState(o *backendConfig) bool {
	return b.Type == o.Type && b.statePath() == o.statePath() && slices.Equal(b.Endpoints, o.Endpoints) && b.Prefix == o.Prefix
}

// describeChange says how the backend changed from prev to b without
// showing a secret: when the two read the same (only the credentials
// changed), it names the settings that did.
func describeChange(prev, b *backendConfig) string {
	from, to := prev.String(), b.String()
	if from != to {
		return fmt.Sprintf("from %s to %s", from, to)
	}
	return fmt.Sprintf("for %s (changed: %s)", to, strings.Join(prev.changes(b), ", "))
}

// backendFromSettings maps the configuration's backend block to a
// backendConfig; no block is the local backend with its defaults.
func backendFromSettings(s *config.Settings) *backendConfig {
	if s == nil || s.Backend == nil {
		return &backendConfig{Type: "local"}
	}
	be := s.Backend
	b := &backendConfig{Type: be.Type, Path: be.Path, Endpoints: be.Endpoints, Prefix: be.Prefix, Username: be.Username, Password: be.Password}
	if b.Type == "local" && b.Path == config.DefaultStatePath {
		b.Path = ""
	}
	if be.TLS != nil {
		b.CAFile, b.CertFile, b.KeyFile = be.TLS.CAFile, be.TLS.CertFile, be.TLS.KeyFile
	}
	if be.DialTimeout > 0 {
		b.DialTimeout = be.DialTimeout.String()
	}
	return b
}

// open returns the manager of the default workspace's state; dir is the
// configuration directory.
func (b *backendConfig) open(dir string) (state.Full, error) {
	return b.openWorkspace(dir, config.DefaultWorkspace)
}

// openWorkspace returns the manager of workspace name's state.
func (b *backendConfig) openWorkspace(dir, name string) (state.Full, error) {
	switch b.Type {
	case "local":
		p := b.statePath()
		switch {
		case name != config.DefaultWorkspace:
			p = filepath.Join(localWorkspaceDir(dir, name), state.DefaultPath)
		case !filepath.IsAbs(p):
			p = filepath.Join(dir, p)
		}
		return state.NewFilesystem(state.LocalOptions{Path: p}), nil
	case "etcd":
		o, err := b.etcdOptions(dir)
		if err != nil {
			return nil, err
		}
		return state.NewEtcd(context.Background(), o.ForWorkspace(name))
	}
	return nil, fmt.Errorf("unknown backend type %q", b.Type)
}

// configuredBackend reads the backend block of the configuration in dir,
// with the -backend-config arguments init recorded merged in, writing any
// diagnostics through s. A directory without configuration files uses the
// local backend, so that state commands work on a bare state file as they
// do in Terraform.
func configuredBackend(dir string, s Meta) (*backendConfig, bool) {
	var over hcl.Attributes
	overType := ""
	// An unreadable record is reported by checkInitialized, which follows.
	if rec, err := readBackendRecord(dir); err == nil && rec != nil {
		over, overType = rec.overrides(), rec.Backend.Type
	}
	return loadBackend(dir, config.NewLoader(), over, overType, s)
}

// loadBackend reads the backend block of the configuration in dir with
// the arguments in over (parsed by loader, for its diagnostics to show
// their source) replacing the block's, as Terraform's partial backend
// configuration. overType is the type of backend over were recorded for,
// "" for init's -backend-config options, which need a backend block to
// apply to: recorded ones apply to a block of their type only (another
// type is a changed backend, which checkInitialized reports).
func loadBackend(dir string, loader *config.Loader, over hcl.Attributes, overType string, s Meta) (*backendConfig, bool) {
	settings, _, diags := loader.LoadBackend(dir)
	if diags.HasErrors() {
		if len(diags) == 1 && diags[0].Summary == "No configuration files" {
			return &backendConfig{Type: "local"}, true
		}
		s.configDiagnostics(diags, loader, 78)
		return nil, false
	}
	if settings != nil && settings.Backend != nil {
		if overType != "" && settings.Backend.Type != overType {
			over = nil
		}
		be, d := settings.Backend.WithOverrides(over)
		diags = append(diags, d...)
		settings.Backend = be
	} else if overType == "" && len(over) > 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing backend configuration",
			Detail: "-backend-config was given, but the configuration has no backend block for it to complete. " +
				"Add one, such as rdmaform { backend \"etcd\" {} }, and give its arguments with -backend-config.",
		})
	}
	if len(diags) > 0 {
		s.configDiagnostics(diags, loader, 78)
	}
	if diags.HasErrors() {
		return nil, false
	}
	return backendFromSettings(settings), true
}

// recordedBackend returns the backend `init` recorded in dir, or nil.
func recordedBackend(dir string) (*backendConfig, error) {
	rec, err := readBackendRecord(dir)
	if rec == nil || err != nil {
		return nil, err
	}
	return rec.Backend, nil
}

// readBackendRecord returns the record `init` wrote in dir, its password
// read back from backend-secrets.json; nil if there is none.
func readBackendRecord(dir string) (*backendRecord, error) {
	p := filepath.Join(dir, backendDir, backendFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec backendRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil || rec.Version != 1 || rec.Backend == nil {
		return nil, fmt.Errorf("%s is not a valid backend record (%v); run \"rdmaform init -reconfigure\" to rewrite it", p, err)
	}
	if rec.Backend.PasswordSet || len(rec.BackendConfigSecrets) > 0 {
		sp := filepath.Join(dir, backendDir, backendSecretsFile)
		data, err := os.ReadFile(sp)
		var sec backendSecrets
		if err == nil {
			err = json.Unmarshal(data, &sec)
		}
		if err == nil && sec.Password == "" {
			err = errors.New("no password in it")
		}
		if err != nil {
			// The error says nothing of the content: it may be the password.
			return nil, fmt.Errorf("%s records an etcd password, but %s cannot be read (%v); run \"rdmaform init -reconfigure\" with the password again", p, sp, describeReadError(err))
		}
		rec.Backend.Password = sec.Password
	}
	return &rec, nil
}

// describeReadError is err without what a JSON decoder quotes of the
// input.
func describeReadError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return "not valid JSON"
	}
	return err.Error()
}

// overrides are the -backend-config arguments rec holds, for
// configuredBackend to merge over the backend block as init did.
func (rec *backendRecord) overrides() hcl.Attributes {
	src := filepath.Join(backendDir, backendFile)
	over := config.OverrideAttrs(rec.BackendConfig, src)
	for _, name := range rec.BackendConfigSecrets {
		if name == "password" { // the only secret argument
			maps.Copy(over, config.OverrideAttrs(map[string]any{name: rec.Backend.Password}, src))
		}
	}
	return over
}

// writeBackendRecord records b, which init set up with the -backend-config
// arguments over, in dir. backend.json holds no secret. The password, if
// any (from the backend block or -backend-config, not from
// ETCDV3_PASSWORD, which is read afresh by each command), is kept as it is
// in backend-secrets.json, mode 0600 in a 0700 directory, as Terraform
// keeps its -backend-config values in .terraform/terraform.tfstate: later
// commands need it, and -migrate-state needs the previous backend's.
func writeBackendRecord(dir string, b *backendConfig, over hcl.Attributes) error {
	d := filepath.Join(dir, backendDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	rb := *b
	rb.PasswordSet = b.Password != ""
	rec := backendRecord{Version: 1, Backend: &rb, BackendConfig: config.OverrideValues(over)}
	if len(rec.BackendConfig) == 0 {
		rec.BackendConfig = nil
	}
	for name := range over {
		if slices.Contains(config.SecretBackendArguments, name) {
			rec.BackendConfigSecrets = append(rec.BackendConfigSecrets, name)
		}
	}
	secrets := filepath.Join(d, backendSecretsFile)
	if rb.PasswordSet {
		data, _ := json.MarshalIndent(backendSecrets{Password: b.Password}, "", "  ")
		if err := writePrivateFile(secrets, data); err != nil {
			return err
		}
	} else if err := os.Remove(secrets); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	return writePrivateFile(filepath.Join(d, backendFile), data)
}

// writePrivateFile replaces p with data, mode 0600, through a temporary
// file renamed over it, so that a reader sees the old or the new content.
func writePrivateFile(p string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// checkInitialized refuses b, the configured backend, unless init
// recorded it, as Terraform refuses a backend it has not initialised: a
// backend block added or changed since would otherwise switch to another
// state without a word. The local backend with its defaults needs no init.
func checkInitialized(dir string, b *backendConfig, s Meta) bool {
	prev, err := recordedBackend(dir)
	if err != nil {
		s.showErrorText(err.Error())
		return false
	}
	switch {
	case prev == nil && !b.equal(&backendConfig{Type: "local"}):
		s.showError("Backend initialization required, please run \"rdmaform init\"", fmt.Sprintf(
			"Reason: Initial configuration of the requested backend, %s.\n\n"+
				"The configuration names a state backend that \"rdmaform init\" has not set up in\n"+
				"this directory. Run \"rdmaform init\" to use it (with -migrate-state to move the\n"+
				"state kept so far, %s, into it).", b, &backendConfig{Type: "local"}))
		return false
	case prev != nil && !prev.equal(b):
		s.showError("Backend initialization required, please run \"rdmaform init\"", fmt.Sprintf(
			"The backend configuration changed %s.\n"+
				"Run \"rdmaform init -migrate-state\" to move the state to the new backend,\n"+
				"or \"rdmaform init -reconfigure\" to use the new backend without moving it.", describeChange(prev, b)))
		return false
	}
	return true
}

// openStateManager opens the state backend the configuration in dir names.
// If `init` recorded a different backend, it refuses: the user must run
// init (with -migrate-state to move the state).
func openStateManager(dir string, s Meta) (state.Full, bool) {
	b, ok := configuredBackend(dir, s)
	if !ok {
		return nil, false
	}
	if !checkInitialized(dir, b, s) {
		return nil, false
	}
	ws, err := currentWorkspace(dir)
	if err != nil {
		s.showErrorText(err.Error())
		return nil, false
	}
	if ws != config.DefaultWorkspace {
		exists, err := b.hasWorkspace(dir, ws)
		if err != nil {
			showBackendError(s, "Failed to list the workspaces", err)
			return nil, false
		}
		if !exists {
			s.showError(fmt.Sprintf("Currently selected workspace %q does not exist", ws),
				fmt.Sprintf("Run \"rdmaform workspace new %s\" to make it, or \"rdmaform workspace select default\" to go back.", ws))
			return nil, false
		}
	}
	m, err := b.openWorkspace(dir, ws)
	if err != nil {
		detail := err.Error()
		if ae := (*state.AuthError)(nil); errors.As(err, &ae) && ae.WrongCredentials() {
			detail += "\n\nIf the password changed in etcd, give the new one to \"rdmaform init\" (in the\n" +
				"backend block, or -backend-config=\"password=...\" with the other values given\n" +
				"before), which takes it without moving the state."
		}
		if isUnreachable(err) {
			showBackendError(s, "", err)
			return nil, false
		}
		s.showError("Failed to open the state backend", detail)
		return nil, false
	}
	if w, ok := m.(interface{ Warnings() []string }); ok {
		for _, warning := range w.Warnings() {
			s.showWarning("Password sent without TLS", warning)
			fmt.Fprintln(s.Err) // before what the command prints next
		}
	}
	return m, true
}

// isUnreachable reports whether err is etcd not answering, or a server
// that is not etcd: not the lock or the state's fault, and said so.
func isUnreachable(err error) bool {
	var unreachable *state.EtcdUnreachable
	var notEtcd *state.NotEtcdError
	return errors.As(err, &unreachable) || errors.As(err, &notEtcd)
}

// showBackendError reports err of the state backend under heading, unless
// etcd did not answer or is no etcd: that has a heading of its own, and
// the endpoints to check.
func showBackendError(s Meta, heading string, err error) {
	var unreachable *state.EtcdUnreachable
	var notEtcd *state.NotEtcdError
	switch {
	case errors.As(err, &unreachable):
		s.showError("etcd is unreachable", err.Error()+"\n\n"+unreachable.Advice())
	case errors.As(err, &notEtcd):
		s.showError("The etcd backend's endpoint is not etcd", err.Error()+"\n\n"+
			"Give the backend etcd's client URLs (etcd's --advertise-client-urls, port 2379\n"+
			"by default), with https:// when etcd serves TLS.")
	default:
		s.showError(heading, err.Error())
	}
}

// refreshState loads the state, reporting a failure Terraform-style.
func refreshState(m state.Full, s Meta) bool {
	if err := m.RefreshState(); err != nil {
		showBackendError(s, "Failed to load state", err)
		return false
	}
	if n, ok := m.(interface{ Notes() []string }); ok {
		for _, note := range n.Notes() {
			fmt.Fprintln(s.Err) // after what the command printed before
			s.showWarning("State journal replayed in part", note)
		}
	}
	return true
}

// lockFlags are the -lock and -lock-timeout options of commands that
// write state (arguments.State), with what they do.
type lockFlags struct {
	lock    bool
	timeout time.Duration
}

// lockOf is the lock options parsed into a command's arguments.
func lockOf(st arguments.State) lockFlags {
	return lockFlags{lock: st.Lock, timeout: st.LockTimeout}
}

// acquire locks m for operation unless -lock=false, reporting failure
// through s; the returned function unlocks.
func (l *lockFlags) acquire(m state.Locker, operation string, s Meta) (func(), bool) {
	return l.acquireCtx(context.Background(), m, operation, s, s.Err)
}

// acquireCtx is acquire that stops waiting for a held lock when ctx ends
// (silently: the caller says why it stopped), reporting a failure through s;
// while -lock-timeout waits for a lock someone holds, it says so on livew,
// as it happens, and a failure to unlock goes there too.
func (l *lockFlags) acquireCtx(ctx context.Context, m state.Locker, operation string, s Meta, livew io.Writer) (func(), bool) {
	if !l.lock {
		return func() {}, true
	}
	id, err := m.Lock(state.NewLockInfo(operation))
	if err != nil && l.timeout > 0 {
		var le *state.LockError
		if errors.As(err, &le) && le.Info != nil {
			// Said once the wait is noticeable: a configuration error
			// found meanwhile ends it at once, with nothing to say.
			info := le.Info
			t := time.AfterFunc(500*time.Millisecond, func() {
				if !info.Known() {
					fmt.Fprintf(livew, "Acquiring state lock: it is held by a process that has not said who it is (lock ID %s); waiting up to %v for it (-lock-timeout).\n",
						info.ID, l.timeout)
					return
				}
				fmt.Fprintf(livew, "Acquiring state lock: it is held by %s (%s, %s, lock ID %s); waiting up to %v for it (-lock-timeout).\n",
					info.Who, info.Operation, info.Created.Local().Format("2006-01-02 15:04:05"), info.ID, l.timeout)
			})
			defer t.Stop()
		}
		id, err = state.LockWithTimeout(ctx, m, state.NewLockInfo(operation), l.timeout)
	}
	if errors.Is(err, context.Canceled) {
		return nil, false
	}
	var held *state.LockError
	var refused *state.AuthError
	switch {
	case errors.As(err, &held):
		s.showErrorText(err.Error())
		return nil, false
	case errors.As(err, &refused):
		// Not a lock problem: -lock=false would be refused as well.
		s.showError("Failed to open the state backend", refused.Error())
		return nil, false
	case isUnreachable(err):
		showBackendError(s, "", err)
		return nil, false
	case err != nil:
		// The backend failed to lock, rather than found it locked: as
		// Terraform says it.
		s.showError("Error acquiring the state lock", fmt.Sprintf("Error message: %v\n\n"+
			"rdmaform locks the state so that two runs do not write it at once. Resolve the\n"+
			"issue above (is the state's backend reachable?) and try again. For most\n"+
			"commands -lock=false skips the lock, which is not recommended.", err))
		return nil, false
	}
	return func() {
		err := m.Unlock(id)
		var expiring *state.UnlockError
		switch {
		case errors.As(err, &expiring) && expiring.ExpiresIn > 0:
			fmt.Fprintf(livew, "Error releasing the state lock\n\n%v\n\nThe lock expires by itself %s after this command exits: the next one can\ntake it then (-lock-timeout=%s waits for it). \"rdmaform force-unlock %s\"\nreleases it at once.\n", err, expiring.ExpiresIn, expiring.ExpiresIn+5*time.Second, id)
		case err != nil:
			fmt.Fprintf(livew, "Error releasing the state lock\n\n%v\n\nThe lock ID is %s; release it with \"rdmaform force-unlock %s\".\n", err, id, id)
		}
	}, true
}
