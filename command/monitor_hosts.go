package command

import (
	"context"
	"io"
	"strings"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui"
)

// The monitor of a configuration with agent blocks shows the whole
// fabric: every host status reaches (fabricHosts), each watched on its own
// stream under the heartbeat status -watch uses (watchHost), so that a
// host that falls silent is unreachable within the heartbeat's bound while
// the others go on; the monitor calls Watch again, with back-off, until
// it answers.

// hostSource is one host of a fabric as the monitor reads it.
type hostSource struct {
	host  *statusHost
	names client.Names
	beat  heartbeat
}

var _ tui.Source = hostSource{}

func (s hostSource) Watch(ctx context.Context, snapshot func([]tui.Object, tui.AgentInfo), update func(tui.Update)) error {
	dctx, cancel := context.WithTimeout(ctx, agentTimeout)
	c, err := s.host.dial(dctx)
	if err != nil {
		cancel()
		return err
	}
	defer c.Close()
	info := tui.AgentInfo{Socket: s.host.Address, Devices: agentDevices(dctx, c)}
	cancel()
	synced := false
	return watchHost(ctx, c, s.beat, &pb.WatchRequest{WithHistory: true}, func(msg *pb.WatchResponse) bool {
		if msg.Snapshot || !synced {
			if a := msg.Agent; a != nil {
				info.PID, info.StartedAt = int(a.Pid), time.Unix(0, a.StartedAt)
			}
			objs := make([]tui.Object, len(msg.Objects))
			for i, o := range msg.Objects {
				objs[i] = monitorObject(s.names.Shown(o))
			}
			snapshot(objs, info)
			synced = true
		}
		for _, ch := range msg.Changes {
			o := s.names.Shown(ch.Object)
			if ch.Deleted {
				update(tui.Update{Object: tui.Object{Address: o.Address, Parent: o.Parent}, Deleted: true})
				continue
			}
			update(tui.Update{Object: monitorObject(o)})
		}
		return true
	})
}

// agentDevices are the RDMA devices c's agent sees; none when it does not
// say (the header then says none are reported).
func agentDevices(ctx context.Context, c *client.Client) []tui.DeviceInfo {
	devs, err := c.Devices(ctx, &pb.DevicesRequest{})
	if err != nil {
		return nil
	}
	var out []tui.DeviceInfo
	for _, d := range devs.Devices {
		di := tui.DeviceInfo{Name: d.Name}
		for _, p := range d.Ports {
			di.Ports = append(di.Ports, tui.PortInfo{Num: int(p.Num), State: strings.TrimPrefix(p.State, "PORT_")})
		}
		out = append(out, di)
	}
	return out
}

// monitorHosts are the fabric's hosts for the monitor when the
// configuration in the working directory has agent blocks; nil
// otherwise, when it watches the local agent at socket alone.
func monitorHosts(s Meta, socket string) []tui.Host {
	quiet := s
	quiet.Out, quiet.Err = io.Discard, io.Discard
	cfg, st := statusFabric(quiet)
	if cfg == nil {
		return nil
	}
	names := workingDirNames()
	var hosts []tui.Host
	for _, h := range fabricHosts(cfg, st, socket) {
		hosts = append(hosts, tui.Host{Name: hostLabel(h.Key), Target: h.Address, Source: hostSource{host: h, names: names, beat: defaultHeartbeat}})
	}
	return hosts
}
