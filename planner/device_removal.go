package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// deviceBeingRemoved warns when the agent's objects report their device's
// removal: Soft-RoCE finishes rdma link delete only once every process
// that opened the device has closed it, and the agent still holds it, so
// the plan's replacements cannot be made on it until the agent stops.
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
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "A device is being removed",
		Detail: fmt.Sprintf("The agent's objects on it report DEVICE_REMOVAL (%s). A Soft-RoCE device's removal (rdma link delete) waits until every process that opened the device has closed it, and the agent still has it open: run \"rdmaform agent stop\" to let the removal finish (every object the agent holds ends with it), then plan again to make them on a device that serves their addresses.",
			strings.Join(shown, ", "))}}
}
