package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// status of a configuration with agent blocks shows the whole fabric:
// every agent the configuration declares (and the local one, when an
// object of the configuration or the state is on it), reached at once,
// each within a bound; a HOST column; the links between endpoints and the
// connections their listeners accepted, across hosts; and the hosts, with
// those that do not answer. Without agent blocks it is the local agent's
// table alone, as before they existed.

// statusHost is one agent of the fabric status shows.
type statusHost struct {
	Key     string        // the agent block's key; "" for the local agent
	Address string        // HOST:PORT, or the local agent's socket
	agent   *config.Agent // nil for the local agent
	client  *client.Client
	Info    *pb.InfoResponse
	Objects []*pb.Object // with the names shown
	Err     error        // why it does not answer; nil when it does
}

// statusFabric is the configuration of the working directory and its
// state when the configuration has agent blocks; nil otherwise (no
// configuration, one that does not load, or no agent block), when status
// shows the local agent alone. A configuration that does not load while
// the state records objects on other agents is warned of: status could
// not reach them.
func statusFabric(s Meta) (*config.Config, *state.State) {
	l := newConfigLoader(s.startDir)
	l.SkipPreconditions = true
	l.CoreVersion = Version
	cfg, diags := l.Load(".", config.VarInputs{Env: rdmaVarEnv()})
	if cfg != nil && s.configHook != nil {
		s.configHook(cfg)
	}
	loaded := !diags.HasErrors() && cfg != nil
	if loaded && len(cfg.Agents) == 0 {
		return nil, nil
	}
	st := workingDirState()
	if !loaded {
		if st != nil {
			for _, o := range st.Objects {
				if o.Agent != "" {
					s.showWarning("Showing the local agent alone", "The state records objects on other agents, but the configuration does not load, so status cannot reach them:\n"+diags.Error())
					fmt.Fprintln(s.Err)
					break
				}
			}
		}
		return nil, nil
	}
	return cfg, st
}

// workingDirState is the state of the working directory's workspace, or
// nil when it cannot be read: status says nothing of it.
func workingDirState() *state.State {
	m, ok := openStateManager(".", Meta{Err: io.Discard})
	if !ok {
		return nil
	}
	defer m.Close()
	if m.RefreshState() != nil {
		return nil
	}
	return m.State()
}

// fabricHosts are the agents status reaches: every agent block, and the
// local agent (at socket) when an object of cfg or st is on it.
func fabricHosts(cfg *config.Config, st *state.State, socket string) []*statusHost {
	var hosts []*statusHost
	if agentsNeeded(cfg, st, nil, false)[""] {
		hosts = append(hosts, &statusHost{Address: socket})
	}
	for k, a := range cfg.Agents {
		hosts = append(hosts, &statusHost{Key: k, Address: a.Address, agent: a})
	}
	sort.Slice(hosts, func(i, j int) bool { return hostLess(hosts[i].Key, hosts[j].Key) })
	return hosts
}

// dial connects to the host's agent within ctx, in words when it cannot.
func (h *statusHost) dial(ctx context.Context) (*client.Client, error) {
	if h.agent == nil {
		c, err := client.Dial(ctx, h.Address)
		return c, hostError(err)
	}
	return dialRemoteAgent(ctx, h.agent)
}

// fetch dials the host and lists its objects, each step within
// agentTimeout, keeping the connection for a watch.
func (h *statusHost) fetch(names client.Names) {
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	c, err := h.dial(ctx)
	if err != nil {
		h.Err = err
		return
	}
	list, err := c.List(ctx, &pb.ListRequest{Full: true})
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s", agentTimeout)
		}
		h.Err = hostError(err)
		return
	}
	h.client, h.Info = c, list.Agent
	h.Objects = make([]*pb.Object, len(list.Objects))
	for i, o := range list.Objects {
		h.Objects[i] = names.Shown(o)
	}
}

// fetchHosts fetches every host at once.
func fetchHosts(hosts []*statusHost, names client.Names) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.fetch(names)
		}()
	}
	wg.Wait()
}

func closeHosts(hosts []*statusHost) {
	for _, h := range hosts {
		h.client.Close()
	}
}

// hostError says why a host's agent does not answer, in a user's words.
func hostError(err error) error {
	switch err = agentError(err); {
	case errors.Is(err, tui.ErrAgentStopped):
		return errors.New("the agent stopped; its objects went with it")
	case errors.Is(err, tui.ErrAgentGone):
		return errors.New("the agent went away: its connection closed")
	}
	return err
}

// runFabricStatus is status of a configuration with agent blocks.
func runFabricStatus(json, watch bool, s Meta, cfg *config.Config, st *state.State, socket string) int {
	hosts := fabricHosts(cfg, st, socket)
	names := workingDirNames()
	fetchHosts(hosts, names)
	defer closeHosts(hosts)
	var down []string
	for _, h := range hosts {
		if h.Err != nil {
			down = append(down, hostLabel(h.Key))
		}
	}
	var err error
	if json {
		err = writeFabricJSON(s.Out, hosts)
	} else {
		writeFabricStatus(s.Out, hosts)
	}
	if err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	if watch {
		ctx, stop := interruptContext()
		defer stop()
		watchFabric(ctx, hosts, names, s.Out, defaultHeartbeat)
		return 0
	}
	if len(down) > 0 {
		s.showError(fmt.Sprintf("%d of %d %s could not be reached: %s", len(down), len(hosts), plural(len(hosts), "agent", "agents"), strings.Join(down, ", ")),
			"The table shows what the others hold; the hosts section says why each could not be reached.")
		return 1
	}
	return 0
}

// fabricObjects are the objects of the hosts that answered.
func fabricObjects(hosts []*statusHost) []hostObject {
	var out []hostObject
	for _, h := range hosts {
		if h.Err != nil {
			continue
		}
		for _, o := range currentFacts(append([]*pb.Object(nil), h.Objects...)) {
			out = append(out, hostObject{Host: h.Key, Object: o})
		}
	}
	sortHostObjects(out)
	return out
}

// downReasons are the hosts that do not answer, with why.
func downReasons(hosts []*statusHost) map[string]string {
	down := map[string]string{}
	for _, h := range hosts {
		if h.Err != nil {
			down[h.Key] = h.Err.Error()
		}
	}
	return down
}

// writeFabricStatus writes the fabric's table with a HOST column, the
// private data received, the links and the hosts, then the totals.
func writeFabricStatus(out io.Writer, hosts []*statusHost) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	objects := fabricObjects(hosts)
	links := matchLinks(objects, downReasons(hosts))
	counts := map[string]int{}
	if len(objects) == 0 {
		fmt.Fprintln(w, "The agents hold no objects.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "HOST\tADDRESS\tKIND\tSTATUS\tLOCAL\tREMOTE\tDEVICE\tQP\tRTT\tLOST\tLAST EVENT")
		for _, ho := range objects {
			row := statusRow(ho.Object)
			counts[row[2]]++
			fmt.Fprintln(tw, hostLabel(ho.Host)+"\t"+strings.Join(row, "\t"))
		}
		tw.Flush()
		writeFabricPrivateData(w, objects)
	}
	writeLinks(w, links)
	writeHosts(w, hosts)
	fmt.Fprintln(w)
	if len(objects) > 0 {
		fmt.Fprintln(w, statusTotals(counts, len(objects)))
	}
	reachable := 0
	for _, h := range hosts {
		if h.Err == nil {
			reachable++
		}
	}
	hostWords := fmt.Sprintf("%d %s: %d reachable", len(hosts), plural(len(hosts), "host", "hosts"), reachable)
	if n := len(hosts) - reachable; n > 0 {
		hostWords += fmt.Sprintf(", %d unreachable", n)
	}
	if len(links) > 0 {
		hostWords += "; " + linkTotals(links)
	}
	fmt.Fprintln(w, hostWords)
}

// writeFabricPrivateData is writeReceivedPrivateData with each object's
// host.
func writeFabricPrivateData(w io.Writer, objects []hostObject) {
	var tw *tabwriter.Writer
	for _, ho := range objects {
		if len(ho.Object.ReceivedPrivateData) == 0 {
			continue
		}
		if tw == nil {
			fmt.Fprintln(w, "\nPrivate data received:")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", hostLabel(ho.Host), termsafe.String(ho.Object.Address), client.PrivateDataText(ho.Object.ReceivedPrivateData))
	}
	if tw != nil {
		tw.Flush()
	}
}

// writeHosts writes the HOSTS section: each agent, where it is, and its
// certificate or why it does not answer.
func writeHosts(w io.Writer, hosts []*statusHost) {
	fmt.Fprintln(w, "\nHosts:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, h := range hosts {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", hostLabel(h.Key), termsafe.String(h.Address), hostWords(h))
	}
	tw.Flush()
}

// hostWords is what the hosts section says of a host.
func hostWords(h *statusHost) string {
	if h.Err != nil {
		return "unreachable: " + termsafe.Text(h.Err.Error())
	}
	words := fmt.Sprintf("pid %d", h.Info.GetPid())
	if h.Info.GetCertificateSubject() != "" {
		words += fmt.Sprintf(", %s, %s", termsafe.String(h.Info.CertificateSubject), expiryWords(time.Unix(0, h.Info.CertificateNotAfter), time.Now()))
	}
	return words
}

// hostJSON is a host in status -json.
type hostJSON struct {
	Host                string          `json:"host"`
	Address             string          `json:"address,omitempty"`
	Socket              string          `json:"socket,omitempty"`
	Reachable           bool            `json:"reachable"`
	Error               string          `json:"error,omitempty"`
	CertificateSubject  string          `json:"certificateSubject,omitempty"`
	CertificateNotAfter string          `json:"certificateNotAfter,omitempty"` // RFC 3339, UTC
	Agent               json.RawMessage `json:"agent,omitempty"`               // its Info answer
}

// fabricJSON is status -json of a fabric: the objects of every host that
// answered (each with its host), the hosts, the links.
type fabricJSON struct {
	Objects []json.RawMessage `json:"objects"`
	Hosts   []hostJSON        `json:"hosts"`
	Links   []linkJSON        `json:"links"`
}

func writeFabricJSON(out io.Writer, hosts []*statusHost) error {
	objects := fabricObjects(hosts)
	doc := fabricJSON{Objects: []json.RawMessage{}, Hosts: []hostJSON{}, Links: []linkJSON{}}
	for _, ho := range objects {
		b, err := stableJSON(ho.Object)
		if err != nil {
			return err
		}
		doc.Objects = append(doc.Objects, withHost(b, hostLabel(ho.Host)))
	}
	for _, h := range hosts {
		hj := hostJSON{Host: hostLabel(h.Key), Reachable: h.Err == nil}
		if h.agent == nil {
			hj.Socket = h.Address
		} else {
			hj.Address = h.Address
		}
		if h.Err != nil {
			hj.Error = h.Err.Error()
		}
		if h.Info != nil {
			b, err := stableJSON(h.Info)
			if err != nil {
				return err
			}
			hj.Agent = b
			hj.CertificateSubject = h.Info.CertificateSubject
			if h.Info.CertificateNotAfter != 0 {
				hj.CertificateNotAfter = time.Unix(0, h.Info.CertificateNotAfter).UTC().Format(time.RFC3339)
			}
		}
		doc.Hosts = append(doc.Hosts, hj)
	}
	for _, l := range matchLinks(objects, downReasons(hosts)) {
		doc.Links = append(doc.Links, l.json())
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, b, "", "  "); err != nil {
		return err
	}
	fmt.Fprintln(out, indented.String())
	return nil
}

// withHost is an object's JSON with "host" as its first field.
func withHost(object []byte, host string) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"host":`)
	writeJSONString(&b, host)
	if rest := bytes.TrimSpace(object[1:]); len(rest) > 1 {
		b.WriteByte(',')
	}
	b.Write(bytes.TrimSpace(object[1:]))
	return b.Bytes()
}
