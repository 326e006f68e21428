package command

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/rdmaform/rdmaform/state"
)

// stateOnThisHost checks that the objects st records are held by this
// host's agent (the one plan, apply and destroy reach, on a local socket).
// Another host's objects are out of its reach: planned from here they would
// read as gone, be made again here and be forgotten there, so the command
// stops and says where they are.
func stateOnThisHost(st *state.State, s Meta) bool {
	if st == nil {
		return true
	}
	here, err := os.Hostname()
	if err != nil {
		return true
	}
	elsewhere := map[string][]string{}
	for _, o := range st.Objects {
		// Remote agents' objects are reached over the network, from any host.
		if h := o.Facts.AgentHost; o.Agent == "" && h != "" && h != here {
			elsewhere[h] = append(elsewhere[h], o.Addr.String())
		}
	}
	if len(elsewhere) == 0 {
		return true
	}
	hosts := make([]string, 0, len(elsewhere))
	for h := range elsewhere {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var lines []string
	for _, h := range hosts {
		addrs := elsewhere[h]
		sort.Strings(addrs)
		shown := strings.Join(addrs[:min(len(addrs), 3)], ", ")
		if len(addrs) > 3 {
			shown += fmt.Sprintf(" and %d more", len(addrs)-3)
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", h, shown))
	}
	s.showError("The state's objects are held by another host's agent", fmt.Sprintf("%s\n\n"+
		"This host is %s. An agent's connections live on its host, and this host's agent cannot reach those: "+
		"planned from here they would read as gone, be made again here and be forgotten there. "+
		"A state (a backend's prefix, or a workspace) belongs to one host: run rdmaform on %s, "+
		"or give this host a state of its own (rdmaform workspace new %s). "+
		"If those objects are gone for good (that host is gone, or it is this one renamed, "+
		"as a container restarted under another name, and its agent went with the old one), "+
		"rdmaform state rm forgets them.",
		strings.Join(lines, "\n"), here, strings.Join(hosts, ", "), here))
	return false
}
