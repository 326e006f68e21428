package command

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// Reconnect answers as the agent does: an endpoint or connection it holds
// is reconnected (the answer names the host that was asked), a listener
// refused.
func (f *hostAgent) Reconnect(_ context.Context, r *pb.ReconnectRequest) (*pb.ReconnectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range f.objects {
		if o.Address != r.Address {
			continue
		}
		if o.Kind == pb.Kind_LISTENER {
			return nil, status.Error(codes.FailedPrecondition, r.Address+" is a listener: it has no connection of its own to make again")
		}
		return &pb.ReconnectResponse{Done: r.Address + " connects again now (pid " + f.info.Listen + ")"}, nil
	}
	return nil, status.Error(codes.NotFound, r.Address+" does not exist on this agent")
}

// The monitor's reconnect asks the host that holds the object, over
// mutual TLS, under the agent's name for it, and says the outcome under
// the name the screen shows, a refusal in words.
func TestMonitorReconnectAsksTheHostThatHoldsTheObject(t *testing.T) {
	p := newFabricPKI(t)
	s1, s2, compute := fabricAgents()
	compute.objects[0].Address = "endpoint.moved" // held under its old name
	s1Addr, computeAddr := p.serve(t, "storage-1", s1), p.serve(t, "compute", compute)
	dir := p.configDir(t, s1Addr, p.serve(t, "storage-2", s2), computeAddr)
	t.Chdir(dir)
	hosts := monitorHosts(Meta{}, "/nonexistent/agent.sock")
	reconnect := monitorReconnect("/nonexistent/agent.sock", hosts, client.Names{"endpoint.moved": `endpoint.blocks["s1"]`})

	done, err := reconnect("agent.compute", `endpoint.blocks["s1"]`)
	if err != nil || done != `endpoint.blocks["s1"] connects again now (pid `+computeAddr+")" {
		t.Errorf("an endpoint on compute: %q, %v", done, err)
	}
	done, err = reconnect(`agent.storage["s1"]`, `listener.blocks["s1"]/conn/3`)
	if err != nil || done != `listener.blocks["s1"]/conn/3 connects again now (pid `+s1Addr+")" {
		t.Errorf("a connection on s1: %q, %v", done, err)
	}
	_, err = reconnect(`agent.storage["s1"]`, `listener.blocks["s1"]`)
	if err == nil || err.Error() != `listener.blocks["s1"] is a listener: it has no connection of its own to make again` {
		t.Errorf("a listener: %v", err)
	}
	if _, err = reconnect("agent.elsewhere", "endpoint.x"); err == nil || !strings.Contains(err.Error(), "agent.elsewhere is not one of the fabric's hosts") {
		t.Errorf("an unknown host: %v", err)
	}
	if _, err = reconnect("", "endpoint.x"); err == nil || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("no local agent: %v", err)
	}
}
