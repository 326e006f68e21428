package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// deviceBeingRemoved warns when the agent's objects report their device's
// removal: the agent has released the device (so rdma link delete
// completes), and the plan's replacements need a device that serves their
// addresses again.
func deviceBeingRemoved(live map[string]LiveObject) hcl.Diagnostics {
	var names []string
	for name, o := range live {
		if strings.HasPrefix(o.Error, "DEVICE_REMOVAL") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	shown := names
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "A device was removed",
		Detail: fmt.Sprintf("The agent's objects on it report DEVICE_REMOVAL (%s). The agent has released everything it held on the device, so its removal (rdma link delete) completes while the agent runs. Add the device back (rdma link add), or one that serves the same addresses, before you apply: endpoints with a reconnect policy then reconnect by themselves (their protection domain allocated again), and this plan makes the others again.",
			strings.Join(shown, ", "))}}
}
