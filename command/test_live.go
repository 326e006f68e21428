package command

import (
	"context"
	"fmt"
	"io"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// liveView is one object as the agent holds it, for a test's live.*
// references.
type liveView struct {
	Status                  string
	Connections, Reconnects int
	Error                   string
	Probe                   *config.LiveProbe
}

// liveViewReader is what a fabric may offer to read every object's live
// view, probes included; the agent's connection does not (its Refresher
// lists without probes), so the test command reads the agent itself.
type liveViewReader interface {
	LiveViews(ctx context.Context) (map[string]liveView, error)
}

// liveWait bounds how long a test waits for the endpoints that probe to
// have a probe answered or lost: right after apply none has been sent.
const liveWait = 60 * time.Second

// readLive reads the live view of st's objects, by address: through the
// fabric when it can, else from the local agent at socket (never
// starting one). It waits for every probing endpoint to have a probe's
// outcome, up to liveWait.
func readLive(s Meta, socket string, st *state.State) (func(addrs.Instance) (cty.Value, bool), error) {
	ctx, cancel := context.WithTimeout(context.Background(), liveWait+30*time.Second)
	defer cancel()
	read, closeRead, err := liveSource(ctx, s, socket)
	if err != nil {
		return nil, err
	}
	defer closeRead()
	handles := map[string]addrs.Instance{}
	if st != nil {
		for _, o := range st.Objects {
			if o.Facts.AgentHandle != "" {
				handles[o.Facts.AgentHandle] = o.Addr
			}
		}
	}
	deadline := time.Now().Add(liveWait)
	var views map[string]liveView
	for {
		views, err = read(ctx)
		if err != nil {
			return nil, err
		}
		if probed(views, handles) || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	byAddr := map[addrs.Instance]cty.Value{}
	for h, a := range handles {
		if v, ok := views[h]; ok {
			byAddr[a] = config.LiveValue(v.Status, v.Connections, v.Reconnects, v.Error, v.Probe)
		}
	}
	return func(a addrs.Instance) (cty.Value, bool) { v, ok := byAddr[a]; return v, ok }, nil
}

// probed reports whether every established endpoint of the state that
// probes has had a probe answered or lost.
func probed(views map[string]liveView, handles map[string]addrs.Instance) bool {
	for h := range handles {
		v, ok := views[h]
		if ok && v.Probe != nil && v.Status == "established" && v.Probe.Received+v.Probe.Lost == 0 {
			return false
		}
	}
	return true
}

// liveSource is how the live views are read: the fabric's LiveViews (a
// test's fake fabric), or the local agent's list.
func liveSource(ctx context.Context, s Meta, socket string) (func(context.Context) (map[string]liveView, error), func(), error) {
	if connect := s.connector(); connect != nil && s.Connect != nil {
		fc, err := connect(ctx, socket, io.Discard, func() bool { return false })
		if err != nil {
			return nil, nil, err
		}
		closeConn := func() {
			if fc.Close != nil {
				fc.Close()
			}
		}
		if r, ok := fc.Refresher.(liveViewReader); ok {
			return r.LiveViews, closeConn, nil
		}
		closeConn()
		return nil, nil, fmt.Errorf("this fabric has no live view")
	}
	if s.NoAgent {
		return nil, nil, fmt.Errorf("%s", errNoAgent)
	}
	c, err := client.Connect(ctx, client.ChooseSocket("", socket), client.StartOptions{MayStart: func() bool { return false }})
	if err != nil {
		return nil, nil, fmt.Errorf("reaching the agent: %w", agentError(err))
	}
	read := func(ctx context.Context) (map[string]liveView, error) {
		list, err := c.List(ctx, &pb.ListRequest{Full: true, Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_PROTECTION_DOMAIN, pb.Kind_LISTENER, pb.Kind_ENDPOINT}}})
		if err != nil {
			return nil, fmt.Errorf("listing the agent's objects: %w", agentError(err))
		}
		out := make(map[string]liveView, len(list.Objects))
		for _, o := range list.Objects {
			out[o.Address] = liveViewOf(o)
		}
		return out, nil
	}
	return read, func() { c.Close() }, nil
}

// liveViewOf is an agent object's live view.
func liveViewOf(o *pb.Object) liveView {
	v := liveView{Status: lowerWord(o.Status.String()), Connections: int(o.Connections), Reconnects: int(o.Reconnects)}
	if e := o.LastError; e != nil {
		v.Error = fmt.Sprintf("%s: %s", e.Call, e.ErrnoName)
	}
	if p := o.Probe; p != nil {
		ms := func(ns int64) float64 { return float64(ns) / 1e6 }
		v.Probe = &config.LiveProbe{Mode: p.Mode, Sent: p.Sent, Received: p.Received, Lost: p.Lost,
			LastMS: ms(p.Last), MinMS: ms(p.Min), MeanMS: ms(p.Mean), MaxMS: ms(p.Max), Degraded: p.Degraded}
		if v.Probe.Mode == "" {
			v.Probe.Mode = "send"
		}
	}
	return v
}
