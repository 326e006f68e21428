package apply

import (
	"sync"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// heldNames are the agent names the prior state's objects hold, their
// deposed objects' included: an object moved to another address keeps
// the name it was made under (moved blocks change no live object), so a
// new object at its old address must take another name.
type heldNames struct {
	once  sync.Once
	prior *state.State
	names map[string]addrs.Instance
}

func (h *heldNames) holder(name string) (addrs.Instance, bool) {
	h.once.Do(func() { h.names = planner.HeldNames(h.prior) })
	a, ok := h.names[name]
	return a, ok
}

// freeName is base, or base with a suffix from token when another object
// of the state holds base.
func (h *heldNames) freeName(base string, addr addrs.Instance, token string) string {
	if holder, ok := h.holder(base); ok && holder != addr {
		return suffixed(base, token)
	}
	return base
}
