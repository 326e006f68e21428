package client

import (
	"strings"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/protobuf/proto"
)

// Names maps the agent's names of a configuration's objects to the names
// status and the monitor show for them, where the two differ: the agent
// keeps the name an object was made under, so an object moved to another
// address, or a create_before_destroy replacement (made under a # suffix),
// would otherwise show under a name its configuration no longer uses.
type Names map[string]string

// connSep joins an accepted connection's name to its listener's.
const connSep = "/conn/"

// Of is the name to show for the agent's name. A listener's accepted
// connection ("listener.l#1a2b3c4d/conn/5") is shown under its listener's.
func (n Names) Of(name string) string {
	if shown, ok := n[name]; ok {
		return shown
	}
	if i := strings.LastIndex(name, connSep); i > 0 {
		if shown, ok := n[name[:i]]; ok {
			return shown + name[i:]
		}
	}
	return name
}

// Held is the agent's name of the object shown as shown: the reverse of
// Of, for what the monitor asks of the agent.
func (n Names) Held(shown string) string {
	for held, s := range n {
		if s == shown {
			return held
		}
	}
	if i := strings.LastIndex(shown, connSep); i > 0 {
		for held, s := range n {
			if s == shown[:i] {
				return held + shown[i:]
			}
		}
	}
	return shown
}

// Shown is o under the names to show (o itself when they are the agent's).
func (n Names) Shown(o *pb.Object) *pb.Object {
	addr, parent := n.Of(o.Address), o.Parent
	if parent != "" {
		parent = n.Of(parent)
	}
	if addr == o.Address && parent == o.Parent {
		return o
	}
	o = proto.CloneOf(o)
	o.Address, o.Parent = addr, parent
	return o
}
