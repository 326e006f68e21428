package main

import (
	"io"

	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// workingDirNames are the names status and the monitor show for the
// objects of the configuration in the working directory (namesOf its
// state). Both run anywhere, so a directory without a configuration, or
// whose state cannot be read, just gives the agent's names.
func workingDirNames() client.Names {
	m, ok := openStateManager(".", io.Discard)
	if !ok {
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
