package planner

import (
	"context"
	"errors"
)

// Refresher reads what the agent holds, in one round trip. The agent client
// implements it.
type Refresher interface {
	// Live returns every object the agent holds, keyed by address
	// (addrs.Instance.String()). An object of the state missing from the
	// map is gone: the plan re-creates it.
	Live(ctx context.Context) (map[string]LiveObject, error)
}

// LiveObject is one object as the agent holds it.
type LiveObject struct {
	// Token is the create token the object was made with; an object held
	// under another token than the state's is not the state's object.
	Token string
	// Status is the agent's word (established, listening, error, ...).
	Status string
	// Reconnects counts the endpoint's reconnections: one the state
	// recorded with another count is on a new connection, whose facts
	// the refresh reads (see FactsReader).
	Reconnects int
	// Connections counts a listener's accepted connections.
	Connections int
	// Error is the agent's last error, "CALL: ERRNO" (DEVICE_REMOVAL:
	// ENODEV), or "".
	Error string
	// Agent is the key of the agent holding the object (an agent block's
	// instance, agent.compute), "" for the local agent: a Refresher that
	// reads several agents answers with all their objects, each saying
	// whose it is.
	Agent string
}

// AgentScope is what a Refresher reading several agents may also do: say
// whose objects Live read (with -target, only the agents of the objects
// targeted are asked). An object on an agent Live did not read is taken as
// the state records it, never as gone.
type AgentScope interface {
	Reads(agent string) bool
}

// DeviceInfo answers device questions at plan time, for the objects of one
// agent (see Options.Devices). The agent implements it.
type DeviceInfo interface {
	// Devices lists the RDMA devices with their limits.
	Devices(ctx context.Context) ([]Device, error)
	// DeviceFor names the device through which address is reached (the one
	// rdma_bind_addr or rdma_resolve_addr would pick); it returns an error
	// wrapping ErrNoDevice when no RDMA device serves the address.
	DeviceFor(ctx context.Context, address string) (string, error)
}

// Device is one RDMA device and the limits the plan checks.
type Device struct {
	Name    string
	MaxQPWR int // max_qp_wr
	MaxSGE  int // max_sge
	MaxCQE  int // max_cqe
	// MaxQPRdAtom and MaxQPInitRdAtom: max_qp_rd_atom, max_qp_init_rd_atom.
	MaxQPRdAtom, MaxQPInitRdAtom int
	// MaxSRQ, MaxSRQWR, MaxSRQSGE: max_srq, max_srq_wr, max_srq_sge (all 0
	// from an agent that does not report them).
	MaxSRQ, MaxSRQWR, MaxSRQSGE int
	// LinkLayer is its first port's: "InfiniBand" or "Ethernet".
	LinkLayer string
}

// ErrNoDevice is wrapped by DeviceInfo.DeviceFor when no device serves an
// address.
var ErrNoDevice = errors.New("no RDMA device serves this address")
