package command

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// writeQPAttrs lists what each connected QP really got (ibv_query_qp):
// the RDMA READ and atomic depths negotiated with the peer, the traffic
// class and the ACK timeout.
func writeQPAttrs(w io.Writer, objects []*pb.Object) {
	var tw *tabwriter.Writer
	for _, o := range objects {
		a := o.GetFacts().GetQpAttrs()
		if a == nil {
			continue
		}
		if tw == nil {
			fmt.Fprintln(w, "\nQP attributes (ibv_query_qp):")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", termsafe.String(o.Address), qpAttrsText(a))
	}
	if tw != nil {
		tw.Flush()
	}
}

func qpAttrsText(a *pb.QPAttrs) string {
	parts := []string{
		fmt.Sprintf("responder_resources %d", a.GetResponderResources()),
		fmt.Sprintf("initiator_depth %d", a.GetInitiatorDepth()),
	}
	if a.TrafficClass != nil {
		parts = append(parts, fmt.Sprintf("traffic_class %d", a.GetTrafficClass()))
	}
	if a.AckTimeout != nil {
		parts = append(parts, fmt.Sprintf("ack_timeout %d", a.GetAckTimeout()))
	}
	return strings.Join(parts, ", ")
}

// rdAtomsText is a spec's responder_resources or initiator_depth: the
// number, or what the agent takes when the configuration left it out.
func rdAtomsText(n uint32, auto bool) string {
	if auto {
		return "device's"
	}
	return fmt.Sprint(n)
}
