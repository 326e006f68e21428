package command

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"strings"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"google.golang.org/grpc"
)

// agentStopper is what agent stop needs of the agent: what it holds, and
// to stop.
type agentStopper interface {
	List(ctx context.Context, in *pb.ListRequest, opts ...grpc.CallOption) (*pb.ListResponse, error)
	Stop(ctx context.Context) error
}

// stopAgent is agent stop once the agent answered. Stopping an agent ends
// every connection of every configuration that uses it, so one holding
// objects stops only after a "yes" on a terminal, or with -force.
func stopAgent(ctx context.Context, c agentStopper, info *pb.InfoResponse, force bool, s Meta) int {
	list, err := c.List(ctx, &pb.ListRequest{})
	if err != nil {
		s.showError(fmt.Sprintf("Listing what the agent at %s holds before stopping it", termsafe.String(info.Socket)), agentError(err).Error())
		return 1
	}
	if len(list.Objects) > 0 && !force {
		what := agentHoldings(info.Pid, list.Objects)
		if !arguments.InputDefault() || !s.stdinIsTerminal() {
			why := "standard input is not a terminal"
			if !arguments.InputDefault() {
				why = "RDMAFORM_INPUT=false forbids asking"
			}
			s.showError("The agent was not stopped", fmt.Sprintf("%s\nagent stop asks before it ends them, and %s. Add -force to stop the agent\nwithout asking.", what, why))
			return 1
		}
		fmt.Fprintf(s.Out, "%s\n\nDo you really want to stop the agent?\n"+
			"  rdmaform will disconnect and destroy every object it holds, of every\n"+
			"  configuration that uses it. There is no undo. Only 'yes' will be accepted\n  to confirm.\n\n  Enter a value: ", what)
		answer, _ := bufio.NewReader(s.In).ReadString('\n')
		fmt.Fprintln(s.Out)
		if strings.TrimSpace(answer) != "yes" {
			fmt.Fprintln(s.Out, "agent stop cancelled.")
			return 1
		}
	}
	if err := c.Stop(ctx); err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "Stopped the agent (pid %d) at %s.\n", info.Pid, termsafe.String(info.Socket))
	return 0
}

// agentHoldings says what stopping the agent ends: "The agent (pid 42)
// holds 7 objects of 2 namespaces (the default one, other), with 4 live
// connections: stopping it disconnects and destroys them all." A live
// connection is an established (or degraded) endpoint, or a connection a
// listener accepted: a link between two endpoints of one agent counts
// twice, once at each end.
func agentHoldings(pid int32, objects []*pb.Object) string {
	namespaces := map[string]bool{}
	live := 0
	for _, o := range objects {
		name := o.Address
		if o.Kind == pb.Kind_CONNECTION && o.Parent != "" {
			name = o.Parent
		}
		namespaces[planner.NamespaceOf(name)] = true
		connected := o.Status == pb.Status_ESTABLISHED || o.Status == pb.Status_DEGRADED
		if connected && (o.Kind == pb.Kind_ENDPOINT || o.Kind == pb.Kind_CONNECTION) {
			live++
		}
	}
	var names []string
	for ns := range namespaces {
		if ns == "" {
			names = append(names, "the default one")
		} else {
			names = append(names, termsafe.String(ns))
		}
	}
	sort.Strings(names)
	return fmt.Sprintf("The agent (pid %d) holds %d %s of %d %s (%s), with %d live %s: stopping it\ndisconnects and destroys them all.",
		pid, len(objects), plural(len(objects), "object", "objects"), len(names), plural(len(names), "namespace", "namespaces"),
		strings.Join(names, ", "), live, plural(live, "connection", "connections"))
}
