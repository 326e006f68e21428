package command

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// writeKernelView writes, under status's table, what the agent's last
// comparison with the kernel's RDMA resource tracking found: a line when
// the kernel confirms everything, and each discrepancy otherwise (the
// objects it does not confirm, the leaks). Nothing before the first
// comparison.
func writeKernelView(w io.Writer, list *pb.ListResponse) {
	k := list.GetAgent().GetKernel()
	if k == nil {
		return
	}
	if k.CheckedAt == 0 {
		fmt.Fprintf(w, "\nKernel's view: %s\n", termsafe.String(k.Error))
		return
	}
	var bad []*pb.Object
	for _, o := range list.Objects {
		if s := o.GetKernel().GetStatus(); s == pb.KernelStatus_KERNEL_MISSING || s == pb.KernelStatus_KERNEL_MISMATCH {
			bad = append(bad, o)
		}
	}
	n := len(bad) + len(k.Leaks)
	fmt.Fprintf(w, "\nKernel's view (rdma resource): %d %s confirmed, %d %s\n", k.Confirmed, plural(int(k.Confirmed), "object", "objects"),
		n, plural(n, "discrepancy", "discrepancies"))
	if k.Error != "" {
		fmt.Fprintf(w, "  (from an earlier check: %s)\n", termsafe.String(k.Error))
	}
	if n == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range bad {
		fmt.Fprintf(tw, "  %s\t%s\n", termsafe.String(o.Address), termsafe.String(kernelText(o.GetKernel())))
	}
	for _, r := range k.Leaks {
		fmt.Fprintf(tw, "  leak\t%s\n", termsafe.String(leakText(r)))
	}
	tw.Flush()
}

// kernelText is an object's kernel verdict in words: "mismatch: QP 19 is
// ERR in the kernel, ...".
func kernelText(k *pb.KernelCheck) string {
	word := strings.ToLower(strings.TrimPrefix(k.GetStatus().String(), "KERNEL_"))
	if k.GetDetail() == "" {
		return word
	}
	return word + ": " + k.GetDetail()
}

// leakText is a leaked resource as "rdma resource show" would list it.
func leakText(r *pb.KernelResource) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d on %s/%d", r.Kind, r.Number, r.Device, r.Port)
	if r.LocalAddr != "" {
		b.WriteString(" " + r.LocalAddr)
	}
	if r.RemoteAddr != "" {
		b.WriteString(" to " + r.RemoteAddr)
	}
	fmt.Fprintf(&b, ", %s, held by %s but by no object of the agent's", r.State, r.Program())
	return b.String()
}
