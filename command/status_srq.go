package command

import (
	"fmt"
	"io"
	"text/tabwriter"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// writeSRQs lists the listeners whose connections receive from a shared
// receive queue: its size as the device gave it and the receives posted
// now (fewer while messages are being echoed; none left would make peers
// meet receiver-not-ready).
func writeSRQs(w io.Writer, objects []*pb.Object) {
	var tw *tabwriter.Writer
	for _, o := range objects {
		if o.Srq == nil {
			continue
		}
		if tw == nil {
			fmt.Fprintln(w, "\nShared receive queues:")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", termsafe.String(o.Address), srqText(o.Srq))
	}
	if tw != nil {
		tw.Flush()
	}
}

func srqText(s *pb.SRQStats) string {
	return fmt.Sprintf("on %s: max_recv_wr %d, max_recv_sge %d, %d posted", termsafe.String(s.Device), s.MaxRecvWr, s.MaxRecvSge, s.Posted)
}
