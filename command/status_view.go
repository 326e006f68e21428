package command

import (
	"fmt"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// newStatusView is status's view: -json's document, or the table.
func newStatusView(json bool, s Meta) views.Status {
	if json {
		return statusJSON{s}
	}
	return statusHuman{s}
}

type statusHuman struct{ s Meta }

func (h statusHuman) Objects(list *pb.ListResponse) bool {
	writeStatusTable(h.s.Out, list.Objects)
	if len(list.Objects) == 0 && nodevice.OnThisHost() {
		// The agent listens on this host's socket: why it holds nothing
		// may be that nothing can be made here.
		fmt.Fprintf(h.s.Out, "\nNote: %s.\n", nodevice.Help)
	}
	writeKernelView(h.s.Out, list)
	return true
}

type statusJSON struct{ s Meta }

func (j statusJSON) Objects(list *pb.ListResponse) bool {
	list.Objects = currentFacts(list.Objects)
	b, err := stableJSON(list)
	if err != nil {
		j.s.showErrorText(err.Error())
		return false
	}
	fmt.Fprintln(j.s.Out, string(b))
	return true
}
