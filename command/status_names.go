package command

import (
	"io"

	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// workingDirNames are the names status and the monitor show for the
// objects of the configuration in the working directory: namesOf the
// state of each of its workspaces, since one agent holds them all (each
// workspace's under its own namespace, so their names cannot clash), and
// an object a workspace moved would otherwise show, from another
// workspace, under the name the agent keeps, as if it were an orphan.
// Both run anywhere, so a directory without a configuration, or whose
// states cannot be read, just gives the agent's names.
func workingDirNames() client.Names {
	b, ok := configuredBackend(".", Meta{Err: io.Discard})
	if !ok || !checkInitialized(".", b, Meta{Err: io.Discard}) {
		return nil
	}
	workspaces, err := b.workspaces(".")
	if err != nil {
		workspaces = []string{workspaceOrDefault(".")}
	}
	names := client.Names{}
	for _, ws := range workspaces {
		for held, shown := range workspaceNames(b, ws) {
			names[held] = shown
		}
	}
	return names
}

// workspaceNames is namesOf workspace ws's state, nil when it cannot be
// read.
func workspaceNames(b *backendConfig, ws string) client.Names {
	m, err := b.openWorkspace(".", ws)
	if err != nil {
		return nil
	}
	defer m.Close()
	if m.RefreshState() != nil {
		return nil
	}
	return namesOf(m.State())
}

// namesOf maps the agent's names of st's objects to their addresses, where
// they differ (a moved object, a create_before_destroy replacement), under
// the same agent namespace; a deposed object the agent still holds shows
// as its address "(deposed)".
func namesOf(st *state.State) client.Names {
	if st == nil {
		return nil
	}
	names := client.Names{}
	for _, o := range st.Objects {
		held := planner.AgentHandle(o)
		shown := planner.AgentName(o.Addr, planner.NamespaceOf(held))
		if held != shown {
			names[held] = shown
		}
		if d := o.Facts.Deposed; d != nil && d.AgentHandle != "" {
			names[d.AgentHandle] = shown + " (deposed)"
		}
	}
	return names
}
