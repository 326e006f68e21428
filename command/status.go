package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/tui"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"google.golang.org/protobuf/proto"
)

func init() {
	register(command{Name: "status", Synopsis: "Show the live status of every object the agent holds", Run: runStatus})
}

const statusHelp = `Usage: rdmaform [global options] status [options]

  Prints what the agent holds, live: every protection domain, listener,
  accepted connection and endpoint with its status, addresses, QP number,
  device, last probe round trip and probes lost of those sent. An endpoint
  connecting again, or disconnected for good, shows no QP, local port or
  round trip: they belonged to the connection that ended, which the agent
  released; nor does a degraded one show a round trip
  (its last probes were lost). For people and scripts; "rdmaform monitor"
  is the interactive view.

  Under the table, "Private data received" lists the private data peers
  sent, for the objects that got some: an accepted connection's from its
  client's connect request, an endpoint's from its listener's accept (of
  its last connection), a UD listener's from its last request. Trailing zeros are removed (IB CM messages pad
  private data with them). It is shown as quoted text when it is
  printable UTF-8, else as "hex " and its bytes in hexadecimal; -json
  carries it as receivedPrivateData, base64 like every bytes field.

  Run in a configuration's directory, it shows that configuration's
  objects under their addresses in its state, also those the agent holds
  under another name (moved ones, create_before_destroy replacements).

  With agent blocks in that configuration, it shows every host's agent:
  a HOST column, the links between endpoints and the connections their
  listeners accepted (on any host, each once with both ends and its round
  trip), and the hosts, with why one does not answer (exit status 1). With
  -watch, a host that stops answering is shown unreachable within two
  seconds, its links unknown, and again once it answers. See docs/cli.md.

Options:
  -json          Print the agent's objects as JSON (its List answer, less
                 the facts of connections that ended).
  -watch         After the table, print a line each time an object's status
                 or last event changes, until Ctrl-C (exit status 0), or
                 until the agent stops or goes away (exit status 1).
  -no-color      Accepted, as Terraform's commands do: status has no colour.
  -agent=PATH    The agent's socket (default: the rdmaform { agent } setting,
                 then the agent's default: /run/rdmaform/agent.sock for root,
                 $XDG_RUNTIME_DIR/rdmaform/agent.sock or
                 /tmp/rdmaform-UID/agent.sock otherwise).
`

func runStatus(args []string, s Meta) int {
	s = s.withJSONErrors(args)
	a, diags := arguments.ParseStatus(args)
	if a.Help {
		fmt.Fprint(s.Err, statusHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, statusHelp)
		return 1
	}
	// Ctrl-C (or SIGTERM, SIGHUP) ends a watch, which ends only so when
	// all goes well: exit status 0, as the help says, not death by the
	// signal. Caught from before the table, after which it may come.
	watchCtx := context.Background()
	if a.Watch {
		var stop context.CancelFunc
		watchCtx, stop = signal.NotifyContext(watchCtx, interruptSignals...)
		defer stop()
	}
	socket := client.ChooseSocket(a.Agent, configuredAgentSocket())
	if cfg, st := statusFabric(s); cfg != nil {
		return runFabricStatus(a.View.JSON, a.Watch, s, cfg, st, socket)
	}
	c := dialToShow("status", socket, s)
	if c == nil {
		return 1
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	list, err := c.List(ctx, &pb.ListRequest{Full: true})
	cancel()
	if err != nil {
		s.showError("Listing the agent's objects", agentError(err).Error())
		return 1
	}
	names := workingDirNames()
	for i, o := range list.Objects {
		list.Objects[i] = names.Shown(o)
	}
	if !newStatusView(a.View.JSON, s).Objects(list) {
		return 1
	}
	if !a.Watch {
		return 0
	}
	err = watchStatus(watchCtx, c, names, list.Objects, s.Out)
	switch err = agentError(err); {
	case err == nil || watchCtx.Err() != nil:
		return 0
	case errors.Is(err, tui.ErrAgentStopped):
		s.showError(fmt.Sprintf("the agent stopped (pid %d); its objects went with it", list.GetAgent().GetPid()), "")
	case errors.Is(err, tui.ErrAgentGone):
		s.showError(fmt.Sprintf("the agent (pid %d) went away: its connection closed", list.GetAgent().GetPid()), "")
	default:
		s.showError("The agent's watch stream ended", err.Error())
	}
	return 1
}

// currentFacts is objects with their current facts (client.CurrentFacts).
func currentFacts(objects []*pb.Object) []*pb.Object {
	for i, o := range objects {
		if f := client.CurrentFacts(o); f != o.Facts {
			o = proto.CloneOf(o)
			o.Facts = f
			objects[i] = o
		}
	}
	return objects
}

func writeStatusTable(out io.Writer, objects []*pb.Object) {
	// The table writer writes cell by cell: one system call each, seconds
	// for a thousand objects on a pipe or a network file system.
	w := bufio.NewWriter(out)
	defer w.Flush()
	if len(objects) == 0 {
		fmt.Fprintln(w, "The agent holds no objects.")
		return
	}
	objects = currentFacts(append([]*pb.Object(nil), objects...))
	sort.SliceStable(objects, func(i, j int) bool { return statusOrder(objects[i], objects[j]) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDRESS\tKIND\tSTATUS\tLOCAL\tREMOTE\tDEVICE\tQP\tRTT\tLOST\tLAST EVENT")
	counts := map[string]int{}
	for _, o := range objects {
		row := statusRow(o)
		counts[row[2]]++
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	writeReceivedPrivateData(w, objects)
	writeQPAttrs(w, objects)
	writeSRQs(w, objects)
	fmt.Fprintf(w, "\n%s\n", statusTotals(counts, len(objects)))
}

// statusRow is o's cells in the table's columns: ADDRESS, KIND, STATUS,
// LOCAL, REMOTE, DEVICE, QP, RTT, LOST, LAST EVENT.
func statusRow(o *pb.Object) []string {
	status := lowerWord(o.Status.String())
	var local, remote, device, qp, rtt string
	if f := o.Facts; f != nil {
		local, remote = f.LocalAddr, f.RemoteAddr
		switch {
		case f.Device != "" && f.Port != 0:
			device = fmt.Sprintf("%s:%d", f.Device, f.Port)
		case f.Device != "": // a protection domain: a device, no port
			device = f.Device
		}
		if f.QpNum != 0 {
			qp = fmt.Sprintf("%d %s", f.QpNum, f.QpType)
		}
		if f.QpNum != 0 && f.RemoteQkey != 0 {
			// A UD endpoint's datagrams go to the QP and Q_Key of its
			// SIDR reply: the listener's.
			qp += fmt.Sprintf(" to %d qkey %#x", f.RemoteQpNum, f.RemoteQkey)
		}
	}
	var lost string
	if p := o.Probe; p != nil {
		if p.Last > 0 && !p.Degraded {
			// A degraded endpoint's last answered probe is not how it
			// is doing now.
			rtt = time.Duration(p.Last).Round(time.Microsecond).String()
			if p.Mode != "" && p.Mode != "send" {
				rtt += " " + p.Mode // a WRITE's, READ's or rping's round trip, not an echo's
			}
		}
		lost = tui.ProbeLoss(p.Lost, p.Sent) // as the monitor's LOST column
	}
	if client.ConnectionEnded(o) {
		rtt = "" // the connection that ended had it
	}
	event := o.LastEvent
	if e := o.LastError; e != nil && (o.Status == pb.Status_ERROR || o.Status == pb.Status_REJECTED) {
		event = fmt.Sprintf("%s: %s", e.Call, e.ErrnoName)
	}
	if o.Kind == pb.Kind_LISTENER && datagramListener(o.GetListener()) && o.AcceptedTotal > 0 {
		// A datagram listener answers each request and keeps nothing:
		// the count is all there is to list.
		event = fmt.Sprintf("%s; answered %d %s", dash(event), o.AcceptedTotal, plural(int(o.AcceptedTotal), "request", "requests"))
	}
	// The agent's names, a peer's address, an error's words: from
	// outside, so escaped (a tab would also break the columns).
	return []string{termsafe.String(o.Address), lowerWord(o.Kind.String()), status,
		dash(termsafe.String(local)), dash(termsafe.String(remote)), dash(termsafe.String(device)), dash(termsafe.String(qp)), dash(rtt), dash(lost), dash(termsafe.String(event))}
}

// statusTotals is the line under the table: "6 objects: 3 established, 1
// listening", from the count of each status.
func statusTotals(counts map[string]int, total int) string {
	var parts []string
	for _, st := range []string{"established", "listening", "ready", "connecting", "reconnecting", "degraded", "disconnected", "rejected", "error", "creating"} {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	noun := "objects"
	if total == 1 {
		noun = "object"
	}
	return fmt.Sprintf("%d %s: %s", total, noun, strings.Join(parts, ", "))
}

// writeReceivedPrivateData lists under the table the private data peers
// sent: an accepted connection's client with its connect request, an
// endpoint's listener with its accept. It is too long for a column and
// most objects have none, so only those with some are listed, if any.
func writeReceivedPrivateData(w io.Writer, objects []*pb.Object) {
	var tw *tabwriter.Writer
	for _, o := range objects {
		if len(o.ReceivedPrivateData) == 0 {
			continue
		}
		if tw == nil {
			fmt.Fprintln(w, "\nPrivate data received:")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", termsafe.String(o.Address), client.PrivateDataText(o.ReceivedPrivateData))
	}
	if tw != nil {
		tw.Flush()
	}
}

// statusOrder lists objects in creation order, as plans do: protection
// domains, listeners each followed by their connections, endpoints; within a
// block by instance key (client[2] before client[10]).
func statusOrder(a, b *pb.Object) bool {
	owner := func(o *pb.Object) string {
		if o.Parent != "" {
			return o.Parent
		}
		return o.Address
	}
	oa, ob := owner(a), owner(b)
	if oa != ob {
		ia, errA := addrs.ParseInstance(oa)
		ib, errB := addrs.ParseInstance(ob)
		if errA == nil && errB == nil {
			return ia.Less(ib)
		}
		return oa < ob
	}
	if (a.Parent == "") != (b.Parent == "") {
		return a.Parent == "" // the listener before its connections
	}
	if na, nb := connectionNumber(a.Address), connectionNumber(b.Address); na != nb {
		return na < nb // conn/2 before conn/10
	}
	return a.Address < b.Address
}

// connectionNumber is N of an accepted connection's "LISTENER/conn/N", 0
// for other names.
func connectionNumber(name string) int {
	i := strings.LastIndex(name, "/conn/")
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(name[i+len("/conn/"):])
	return n
}

// watchStatus prints one line per change, as `kubectl get -w` does, from
// listed, the objects of the table printed above.
func watchStatus(ctx context.Context, c *client.Client, names client.Names, listed []*pb.Object, w io.Writer) error {
	stream, err := c.Watch(ctx, &pb.WatchRequest{})
	if err != nil {
		return err
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	last := watchFilter{}
	for _, o := range listed {
		last.changed(&pb.Change{Object: o})
	}
	// The watch's snapshot is a little later than the list: what changed
	// between them is a change too. changes hold the names shown.
	changes := make([]*pb.Change, 0, len(first.Objects))
	inSnapshot := make(map[string]bool, len(first.Objects))
	for _, o := range first.Objects {
		o = names.Shown(o)
		inSnapshot[o.Address] = true
		changes = append(changes, &pb.Change{Object: o})
	}
	for _, o := range listed {
		if !inSnapshot[o.Address] {
			changes = append(changes, &pb.Change{Object: &pb.Object{Address: o.Address}, Deleted: true})
		}
	}
	for {
		for _, ch := range changes {
			if !last.changed(ch) {
				continue
			}
			o := ch.Object
			status := lowerWord(o.Status.String())
			if ch.Deleted {
				status = "deleted"
			}
			fmt.Fprintf(w, "%s  %-28s %-13s %s\n", time.Now().Format("15:04:05.000"), termsafe.String(o.Address), status, termsafe.String(o.LastEvent))
		}
		msg, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		changes = changes[:0]
		for _, ch := range msg.Changes {
			changes = append(changes, &pb.Change{Object: names.Shown(ch.Object), Deleted: ch.Deleted})
		}
	}
}

// watchFilter remembers each object's status and last event, so that
// status -watch prints a line when one of them changes: a probe's round
// trip changes neither, and came every interval.
type watchFilter map[string]string

// changed records ch and reports whether it says something new.
func (f watchFilter) changed(ch *pb.Change) bool {
	o := ch.Object
	if ch.Deleted {
		_, known := f[o.Address]
		delete(f, o.Address)
		return known
	}
	key := o.Status.String() + "\x00" + o.LastEvent
	if f[o.Address] == key {
		return false
	}
	f[o.Address] = key
	return true
}

func lowerWord(s string) string { return strings.ToLower(s) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// datagramListener: the listener's QP is UD (its own qp type, or the
// default of the udp and ipoib port spaces), so requests are answered
// (SIDR) rather than accepted as connections.
func datagramListener(l *pb.ListenerSpec) bool {
	if t := l.GetQp().GetType(); t != "" {
		return t == "ud"
	}
	ps := l.GetPortSpace()
	return ps == "udp" || ps == "ipoib"
}
