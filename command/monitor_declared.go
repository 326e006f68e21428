package command

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui"
)

// monitorState is what the monitor reads and changes of the working
// directory: the objects its configuration and state declare, and the
// taint mark. The monitor asks (tui.Options.Declared, Taint); this
// command layer owns the state.
type monitorState struct {
	meta Meta
	// fabric: the monitor shows every agent's objects (the configuration
	// has agent blocks), so it declares every agent's.
	fabric bool
}

// declared lists the objects the configuration in the working directory
// and its current workspace's state declare for the local agent, or, in a
// fabric, for every agent, each with its host. With no
// initialized configuration here there are none. A configuration that
// does not load (a variable without a value) leaves the state's.
func (m monitorState) declared() ([]tui.Declared, error) {
	quiet := m.meta
	quiet.Out, quiet.Err = io.Discard, io.Discard
	b, ok := configuredBackend(".", quiet)
	if !ok || !checkInitialized(".", b, quiet) {
		return nil, nil
	}
	sm, err := b.openWorkspace(".", workspaceOrDefault("."))
	if err != nil {
		return nil, err
	}
	defer sm.Close()
	if err := sm.RefreshState(); err != nil {
		return nil, err
	}
	var cfg *config.Config
	if c, diags := newConfigLoader(m.meta.startDir).Load(".", config.VarInputs{Env: os.Environ()}); !diags.HasErrors() {
		cfg = c
	}
	return declaredObjects(cfg, sm.State(), m.fabric), nil
}

// declaredObjects merges the configuration's instances and the state's
// objects, by address: those of the local agent, or with fabric those of
// every agent, each with its host as the monitor names it (hostLabel).
func declaredObjects(cfg *config.Config, st *state.State, fabric bool) []tui.Declared {
	byAddr := make(map[string]*tui.Declared)
	host := func(agent string) string {
		if fabric {
			return hostLabel(agent)
		}
		return ""
	}
	if cfg != nil {
		for addr, inst := range cfg.Instances {
			if inst.Agent != "" && !fabric {
				continue
			}
			a := addr.String()
			byAddr[a] = &tui.Declared{Address: a, Kind: string(addr.Kind), Host: host(inst.Agent), InConfig: true}
		}
	}
	if st != nil {
		for _, o := range st.Objects {
			if o.Agent != "" && !fabric {
				continue
			}
			a := o.Addr.String()
			d := byAddr[a]
			if d == nil {
				d = &tui.Declared{Address: a, Kind: string(o.Addr.Kind), Host: host(o.Agent), InConfig: cfg == nil}
				byAddr[a] = d
			}
			d.InState, d.Pending, d.Tainted = true, o.Facts.Pending, o.Tainted
		}
	}
	out := make([]tui.Declared, 0, len(byAddr))
	for _, d := range byAddr {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// taint marks address tainted as `rdmaform taint ADDRESS` does, and
// returns its error in that command's words.
func (m monitorState) taint(address string) error {
	var out, errb bytes.Buffer
	s := m.meta
	s.In, s.Out, s.Err = strings.NewReader(""), &out, &errb
	if runTaint([]string{address}, s) != 0 {
		// "Error: Title\n\nWhat to do" on one line, for the footer.
		title, body, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(errb.String()), "Error: "), "\n\n")
		msg := strings.Join(strings.Fields(title), " ")
		if body = strings.Join(strings.Fields(body), " "); body != "" {
			msg += ": " + body
		}
		if msg == "" {
			msg = "rdmaform taint failed"
		}
		return errors.New(msg)
	}
	return nil
}
