package command

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui"
)

// agentSource is the agent's watch stream as the monitor reads it, its
// errors reworded (agentError) for the banner. It lives with the CLI, not
// in the agent's client, so that the client does not depend on the
// monitor.
type agentSource struct {
	socket string
	// names are the names to show for the agent's (nil: the agent's own).
	names client.Names
}

var _ tui.Source = agentSource{}

func (m agentSource) Watch(ctx context.Context, snapshot func([]tui.Object, tui.AgentInfo), update func(tui.Update)) error {
	return agentError(m.watch(ctx, snapshot, update))
}

// Watch dials the agent, sends the snapshot, then every change, until ctx
// ends or the connection fails.
func (m agentSource) watch(ctx context.Context, snapshot func([]tui.Object, tui.AgentInfo), update func(tui.Update)) error {
	c, err := client.Dial(ctx, m.socket)
	if err != nil {
		return err
	}
	defer c.Close()
	info := tui.AgentInfo{Socket: m.socket, Devices: agentDevices(ctx, c)}
	stream, err := c.Watch(ctx, &pb.WatchRequest{WithHistory: true})
	if err != nil {
		return err
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if a := first.Agent; a != nil {
		info.PID, info.StartedAt = int(a.Pid), time.Unix(0, a.StartedAt)
		if a.Socket != "" {
			info.Socket = a.Socket
		}
	}
	objs := make([]tui.Object, len(first.Objects))
	for i, o := range first.Objects {
		objs[i] = monitorObject(m.names.Shown(o))
	}
	snapshot(objs, info)
	for {
		msg, err := stream.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		for _, ch := range msg.Changes {
			o := m.names.Shown(ch.Object)
			if ch.Deleted {
				update(tui.Update{Object: tui.Object{Address: o.Address, Parent: o.Parent}, Deleted: true})
				continue
			}
			update(tui.Update{Object: monitorObject(o)})
		}
	}
}

func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// monitorObject converts an agent object for the monitor.
func monitorObject(o *pb.Object) tui.Object {
	out := tui.Object{
		Address:        o.Address,
		Parent:         o.Parent,
		Kind:           strings.ToLower(o.Kind.String()),
		Status:         strings.ToLower(o.Status.String()),
		ConnectedSince: timeOf(o.ConnectedSince),
		Reconnects:     int(o.Reconnects),
		LastEvent:      o.LastEvent,
		LastEventAt:    timeOf(o.LastEventAt),
		Config:         settings(o),

		ReceivedPrivateData: client.PrivateDataText(o.ReceivedPrivateData),
	}
	if f := client.CurrentFacts(o); f != nil {
		out.LocalAddr, out.RemoteAddr, out.QPNum = f.LocalAddr, f.RemoteAddr, f.QpNum
		out.QPType, out.Device, out.Port = strings.ToUpper(f.QpType), f.Device, int(f.Port)
	}
	if k := o.GetKernel(); k.GetStatus() != pb.KernelStatus_KERNEL_UNCHECKED {
		out.Kernel = kernelText(k)
	}
	if e := o.LastError; e != nil {
		out.LastError = &tui.ErrorInfo{Call: e.Call, Errno: int(e.Errno), ErrnoName: e.ErrnoName, Message: e.Message, At: timeOf(e.At)}
	}
	if p := o.Probe; p != nil {
		out.Probe = &tui.ProbeStats{
			Last: time.Duration(p.Last), Min: time.Duration(p.Min), Mean: time.Duration(p.Mean), Max: time.Duration(p.Max),
			Sent: p.Sent, Lost: p.Lost, Degraded: p.Degraded, Ended: client.ConnectionEnded(o),
		}
	}
	for _, h := range o.History {
		out.History = append(out.History, tui.Event{At: timeOf(h.At), Name: h.Name, Detail: h.Detail})
	}
	return out
}

// settings formats an object's spec for the detail pane.
func settings(o *pb.Object) []tui.Setting {
	var s []tui.Setting
	add := func(k, v string) {
		if v != "" {
			s = append(s, tui.Setting{Key: k, Value: v})
		}
	}
	qp := func(q *pb.QP) string {
		if q == nil {
			return "default"
		}
		return fmt.Sprintf("%s send_wr %d recv_wr %d send_sge %d recv_sge %d inline %d", q.Type, q.MaxSendWr, q.MaxRecvWr, q.MaxSendSge, q.MaxRecvSge, q.MaxInlineData)
	}
	switch spec := o.Spec.(type) {
	case *pb.Object_ProtectionDomain:
		add("device", spec.ProtectionDomain.Device)
	case *pb.Object_Listener:
		l := spec.Listener
		add("address", net.JoinHostPort(l.Address, strconv.FormatUint(uint64(l.Port), 10)))
		add("port_space", l.PortSpace)
		add("protection_domain", l.ProtectionDomain)
		add("qp", qp(l.Qp))
		if a := l.Accept; a != nil {
			add("accept", fmt.Sprintf("max_connections %d, echo %v, responder_resources %s, initiator_depth %s",
				a.MaxConnections, a.Echo, rdAtomsText(a.ResponderResources, a.AutoResponderResources), rdAtomsText(a.InitiatorDepth, a.AutoInitiatorDepth)))
		}
		add("connections", fmt.Sprintf("%d now, %d accepted, %d rejected", o.Connections, o.AcceptedTotal, o.RejectedTotal))
	case *pb.Object_Endpoint:
		e := spec.Endpoint
		add("address", net.JoinHostPort(e.Address, strconv.FormatUint(uint64(e.Port), 10)))
		add("port_space", e.PortSpace)
		add("protection_domain", e.ProtectionDomain)
		add("qp", qp(e.Qp))
		if k := e.Connect; k != nil {
			add("connect", fmt.Sprintf("retry %d, rnr_retry %d, timeout %v", k.RetryCount, k.RnrRetryCount, time.Duration(k.Timeout)))
		}
		if r := e.Reconnect; r != nil {
			add("reconnect", fmt.Sprintf("%v to %v", time.Duration(r.MinBackoff), time.Duration(r.MaxBackoff)))
		}
		if p := e.Probe; p != nil {
			mode := ""
			if p.Mode != "" && p.Mode != "send" {
				mode = ", " + p.Mode // the default says nothing
			}
			add("probe", fmt.Sprintf("every %v, %d bytes, timeout %v%s", time.Duration(p.Interval), p.Size, time.Duration(p.Timeout), mode))
		}
		add("reject_reason", o.RejectReason)
	}
	return s
}

// monitorReconnect is the monitor's "reconnect now" (tui.Options.Reconnect):
// it asks the agent that holds the object, the local one at socket or a
// fabric's host over mutual TLS, under the agent's own name for it.
func monitorReconnect(socket string, hosts []tui.Host, names client.Names) func(host, address string) (string, error) {
	return func(host, address string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
		defer cancel()
		var c *client.Client
		var err error
		if host == "" {
			c, err = client.Dial(ctx, socket)
		} else {
			var h *statusHost
			for _, x := range hosts {
				if s, ok := x.Source.(hostSource); ok && x.Name == host {
					h = s.host
				}
			}
			if h == nil {
				return "", fmt.Errorf("%s is not one of the fabric's hosts", host)
			}
			c, err = h.dial(ctx)
		}
		if err != nil {
			return "", err
		}
		defer c.Close()
		held := names.Held(address)
		done, err := c.ReconnectNow(ctx, held)
		if held != address { // say it under the name the screen shows
			done = strings.ReplaceAll(done, held, address)
			if err != nil {
				err = errors.New(strings.ReplaceAll(err.Error(), held, address))
			}
		}
		return done, err
	}
}
