package command

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// A link is what status shows of an RDMA connection across the fabric:
// an endpoint on one host and the connection its listener accepted on
// another (or the same) host, shown once with both ends.
//
// The two ends are matched by their addresses and ports: the endpoint's
// local address is the accepted connection's remote one and the other way
// round, an IP and port pair the RDMA CM gives one connection at a time.
// And by their QP numbers, where both ends report them: each end's QP is
// the other's remote QP. A port pair alone can be reused: a connection
// that ended on one host and that its agent still lists (or a stale
// fact table of a host last heard of) would match a new connection on
// the same ports, but not its QPs.

// hostObject is an object and the agent holding it ("" for the local
// agent).
type hostObject struct {
	Host   string
	Object *pb.Object
}

// fabricLink is one link: the endpoint, the connection its listener
// accepted (nil when no agent reached holds it), and what they say
// together.
type fabricLink struct {
	Endpoint hostObject
	Accepted *hostObject
	// Status is the link's: the endpoint's status word (established,
	// degraded, reconnecting, ...), the accepted connection's when the
	// endpoint is established and it is not, "unknown" when a host of
	// either end does not answer, "unmatched" when the endpoint is
	// connected but no agent reached holds its accepted connection.
	Status string
	Reason string // why unknown or unmatched
	// RTT is the endpoint's last probe round trip, 0 when there is none
	// to show (no probes, degraded, not connected, unknown).
	RTT time.Duration
}

// linkKey is the pair of IP:port strings of one connection, from the
// client's side: its local address, then the listener's.
type linkKey struct{ client, server string }

// matchLinks finds every endpoint's link among objects, the objects of
// every host reached. down are the hosts that do not answer, with why:
// their objects, if given, are what they held when last heard of, and
// the links with an end there are unknown.
func matchLinks(objects []hostObject, down map[string]string) []fabricLink {
	accepted := map[linkKey][]hostObject{}
	var endpoints []hostObject
	for _, ho := range objects {
		o := ho.Object
		switch o.Kind {
		case pb.Kind_CONNECTION:
			if f := client.CurrentFacts(o); f != nil && f.LocalAddr != "" && f.RemoteAddr != "" {
				k := linkKey{client: f.RemoteAddr, server: f.LocalAddr}
				accepted[k] = append(accepted[k], ho)
			}
		case pb.Kind_ENDPOINT:
			endpoints = append(endpoints, ho)
		}
	}
	sortHostObjects(endpoints)
	for _, cs := range accepted {
		sortHostObjects(cs)
	}
	var links []fabricLink
	for _, ep := range endpoints {
		l := fabricLink{Endpoint: ep, Status: lowerWord(ep.Object.Status.String())}
		f := client.CurrentFacts(ep.Object)
		if f != nil && f.LocalAddr != "" && f.RemoteAddr != "" {
			k := linkKey{client: f.LocalAddr, server: f.RemoteAddr}
			// Two candidates when two hosts share an address (NAT, tests
			// on one machine) or ports were reused: the first one not yet
			// taken whose QPs are this endpoint's peers.
			cs := accepted[k]
			for i, c := range cs {
				if qpsCross(f, client.CurrentFacts(c.Object)) {
					accepted[k] = append(cs[:i:i], cs[i+1:]...)
					l.Accepted = &c
					break
				}
			}
		}
		l.judge(f, down)
		links = append(links, l)
	}
	return links
}

// qpsCross reports whether an endpoint's facts and an accepted
// connection's can be the two ends of one connection: each one's QP is
// the other's remote QP, wherever both numbers are known (0 is no QP's
// number: an agent that reports no remote QP, a UD endpoint).
func qpsCross(ep, conn *pb.Facts) bool {
	agree := func(a, b uint32) bool { return a == 0 || b == 0 || a == b }
	return agree(ep.GetQpNum(), conn.GetRemoteQpNum()) && agree(ep.GetRemoteQpNum(), conn.GetQpNum())
}

// judge sets the link's status, reason and round trip from its ends.
func (l *fabricLink) judge(f *pb.Facts, down map[string]string) {
	ep := l.Endpoint.Object
	connected := ep.Status == pb.Status_ESTABLISHED || ep.Status == pb.Status_DEGRADED
	switch {
	case down[l.Endpoint.Host] != "":
		l.Status, l.Reason = "unknown", hostLabel(l.Endpoint.Host)+" does not answer: "+down[l.Endpoint.Host]
		return
	case l.Accepted != nil && down[l.Accepted.Host] != "":
		l.Status, l.Reason = "unknown", hostLabel(l.Accepted.Host)+" does not answer: "+down[l.Accepted.Host]
		return
	case l.Accepted == nil && connected && len(down) > 0:
		l.Status, l.Reason = "unknown", fmt.Sprintf("its listener at %s may be on %s, which does not answer", f.GetRemoteAddr(), strings.Join(downHosts(down), ", "))
		return
	case l.Accepted == nil && connected:
		l.Status, l.Reason = "unmatched", fmt.Sprintf("no agent reached holds the connection its listener at %s accepted", f.GetRemoteAddr())
	case l.Accepted != nil && ep.Status == pb.Status_ESTABLISHED && l.Accepted.Object.Status != pb.Status_ESTABLISHED:
		l.Status = lowerWord(l.Accepted.Object.Status.String())
	}
	if p := ep.Probe; p != nil && p.Last > 0 && !p.Degraded && !client.ConnectionEnded(ep) && connected {
		l.RTT = time.Duration(p.Last)
	}
}

func downHosts(down map[string]string) []string {
	var hs []string
	for h := range down {
		hs = append(hs, hostLabel(h))
	}
	sort.Strings(hs)
	return hs
}

// sortHostObjects orders objects as the table does, then by host.
func sortHostObjects(hos []hostObject) {
	sort.SliceStable(hos, func(i, j int) bool {
		a, b := hos[i], hos[j]
		if a.Object.Address != b.Object.Address {
			return statusOrder(a.Object, b.Object)
		}
		return hostLess(a.Host, b.Host)
	})
}

// hostLess orders hosts: the local agent first, then the agent blocks'
// keys as addresses (agent.r[2] before agent.r[10]).
func hostLess(a, b string) bool {
	if a == "" || b == "" {
		return a == "" && b != ""
	}
	ia, errA := addrs.ParseInstance(a)
	ib, errB := addrs.ParseInstance(b)
	if errA == nil && errB == nil {
		return ia.Less(ib)
	}
	return a < b
}

// hostLabel is how status names a host: its agent block's key, or
// "local" for the local agent.
func hostLabel(key string) string {
	if key == "" {
		return "local"
	}
	return key
}

// endText is an end of a link as the LINKS section shows it:
// `endpoint.blocks["s1"] (agent.compute)`, `listener.blocks["s1"] conn/3
// (agent.storage["s1"])`.
func (ho hostObject) endText() string {
	name := strings.Replace(ho.Object.Address, "/conn/", " conn/", 1)
	return fmt.Sprintf("%s (%s)", termsafe.String(name), hostLabel(ho.Host))
}

// farEnd is the accepted end's text, or where the endpoint connects when
// it was not found.
func (l fabricLink) farEnd() string {
	if l.Accepted != nil {
		return l.Accepted.endText()
	}
	if f := client.CurrentFacts(l.Endpoint.Object); f.GetRemoteAddr() != "" {
		return "? " + termsafe.String(f.GetRemoteAddr())
	}
	if r := l.Endpoint.Object.GetEndpoint(); r != nil && r.Address != "" {
		return fmt.Sprintf("? %s:%d", termsafe.String(r.Address), r.Port)
	}
	return "?"
}

// text is the link's line without its indent: both ends, status, round
// trip or reason, tab-separated for a tabwriter.
func (l fabricLink) text() string {
	last := "-"
	switch {
	case l.Reason != "":
		last = termsafe.String(l.Reason)
	case l.RTT > 0:
		last = "rtt " + l.RTT.Round(time.Microsecond).String()
	}
	return fmt.Sprintf("%s\t⇄ %s\t%s\t%s", l.Endpoint.endText(), l.farEnd(), l.Status, last)
}

// writeLinks writes the LINKS section: each link once, with both ends.
func writeLinks(w io.Writer, links []fabricLink) {
	if len(links) == 0 {
		return
	}
	fmt.Fprintln(w, "\nLinks:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range links {
		fmt.Fprintf(tw, "  %s\n", l.text())
	}
	tw.Flush()
}

// linkTotals is "2 links: 1 established, 1 unknown".
func linkTotals(links []fabricLink) string {
	counts := map[string]int{}
	var order []string
	for _, l := range links {
		if counts[l.Status] == 0 {
			order = append(order, l.Status)
		}
		counts[l.Status]++
	}
	sort.Strings(order)
	var parts []string
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
	}
	return fmt.Sprintf("%d %s: %s", len(links), plural(len(links), "link", "links"), strings.Join(parts, ", "))
}

// linkJSON is a link in status -json.
type linkJSON struct {
	Status   string       `json:"status"`
	Reason   string       `json:"reason,omitempty"`
	RTTNanos int64        `json:"rttNs,omitempty"`
	RTT      string       `json:"rtt,omitempty"`
	Endpoint linkEndJSON  `json:"endpoint"`
	Accepted *linkEndJSON `json:"accepted,omitempty"`
}

// linkEndJSON is one end of a link: its object, host and facts.
type linkEndJSON struct {
	Host     string `json:"host"`
	Address  string `json:"address"`
	Listener string `json:"listener,omitempty"` // an accepted connection's
	Status   string `json:"status"`
	Local    string `json:"local,omitempty"`
	Remote   string `json:"remote,omitempty"`
	QPNum    uint32 `json:"qpNum,omitempty"`
	// RemoteQPNum is the peer's QP as this end knows it: the other end's
	// qpNum on a link matched with both.
	RemoteQPNum uint32 `json:"remoteQpNum,omitempty"`
}

func (ho hostObject) endJSON() linkEndJSON {
	o := ho.Object
	e := linkEndJSON{Host: hostLabel(ho.Host), Address: o.Address, Listener: o.Parent, Status: o.Status.String()}
	if f := client.CurrentFacts(o); f != nil {
		e.Local, e.Remote, e.QPNum, e.RemoteQPNum = f.LocalAddr, f.RemoteAddr, f.QpNum, f.RemoteQpNum
	}
	return e
}

func (l fabricLink) json() linkJSON {
	j := linkJSON{Status: l.Status, Reason: l.Reason, Endpoint: l.Endpoint.endJSON()}
	if l.RTT > 0 {
		j.RTTNanos, j.RTT = int64(l.RTT), l.RTT.Round(time.Microsecond).String()
	}
	if l.Accepted != nil {
		e := l.Accepted.endJSON()
		j.Accepted = &e
	}
	return j
}
