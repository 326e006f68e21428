package state

import (
	"encoding/json"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
)

// Object is one managed object: what was configured and what the agent
// reported when it was created.
type Object struct {
	// Addr is the object's address; its kind is Addr.Kind.
	Addr addrs.Instance
	// SchemaVersion is the version of the attribute schema Attributes
	// follows, so that a later rdmaform can upgrade old attributes.
	SchemaVersion int
	// Attributes are the configured values as a JSON object in cty's JSON
	// encoding (ctyjson.Marshal of the object value), so that they
	// round-trip through the config package's cty values. The bytes are
	// never changed in place (a change replaces the slice), so copies of
	// an object share them.
	Attributes json.RawMessage
	// Dependencies are the objects this one was created after, and must be
	// destroyed before.
	Dependencies []addrs.Instance
	// Facts are what the agent reported; only known after apply.
	Facts Facts
	// SensitiveAttributes lists the attributes whose value was sensitive
	// in the configuration applied (each a path of attribute names, such
	// as ["accept", "private_data"]), so that plans and show print them as
	// (sensitive value) once the configuration no longer says so (destroy,
	// a block removed). Nil when none; states written before the field
	// existed have none. Never changed in place.
	SensitiveAttributes [][]string
	// Agent is the Key of the agent that holds the object (an agent
	// block's instance, config.Agent.Key), or "" for the local agent.
	Agent string
	// Tainted marks the object for replacement by the next plan, as
	// Terraform's taint does.
	Tainted bool
}

// Facts are the runtime facts of a created object.
type Facts struct {
	AgentHandle string `json:"agent_handle,omitempty"`
	// AgentHost is the host whose agent holds the object: an agent's
	// objects live on its host, so a state shared (in etcd) with another
	// host cannot be planned from there.
	AgentHost   string `json:"agent_host,omitempty"`
	CreateToken string `json:"create_token,omitempty"`
	Device      string `json:"device,omitempty"`
	PortNum     int    `json:"port_num,omitempty"`
	QPNum       uint32 `json:"qp_num,omitempty"`
	// RemoteQPNum is the peer's QP number of a connected endpoint or
	// accepted connection (RC, UC), 0 when unknown.
	RemoteQPNum uint32 `json:"remote_qp_num,omitempty"`
	QPType      string `json:"qp_type,omitempty"`
	LocalAddr   string `json:"local_address,omitempty"`
	LocalPort   int    `json:"local_port,omitempty"`
	RemoteAddr  string `json:"remote_address,omitempty"`
	RemotePort  int    `json:"remote_port,omitempty"`
	Status      string `json:"status,omitempty"`
	// Reconnects is the agent's count of the endpoint's reconnections
	// when these facts were read: a refresh finding another count reads
	// the facts of the new connection.
	Reconnects int       `json:"reconnects,omitempty"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	// Pending: apply asked the agent to make the object (with
	// CreateToken) and had not recorded the outcome: a process killed
	// meanwhile leaves it so, and the next refresh adopts the object if
	// the agent made it, or drops it if not.
	Pending bool `json:"pending,omitempty"`
	// Deposed is the object a create_before_destroy replacement replaces,
	// recorded with the replacement until it is destroyed: an apply
	// stopped in between leaves it here, for the next plan to destroy,
	// rather than alive in the agent and known to no state. Never
	// modified in place.
	Deposed *DeposedObject `json:"deposed,omitempty"`
}

// DeposedObject names an object replaced but not yet destroyed.
type DeposedObject struct {
	AgentHandle string `json:"agent_handle"`
	CreateToken string `json:"create_token,omitempty"`
	// Agent is the key of the agent holding it, when not the object's
	// own (a replacement that moved it to another agent).
	Agent string `json:"agent,omitempty"`
}

// DeepCopy returns a copy sharing nothing mutable with o: its Attributes
// are shared, being immutable (copying them was most of the cost of
// copying a large state).
func (o *Object) DeepCopy() *Object {
	if o == nil {
		return nil
	}
	c := *o
	c.Dependencies = append([]addrs.Instance(nil), o.Dependencies...)
	return &c
}

// Output is one root output value.
type Output struct {
	// Value is the output's value in cty's JSON encoding.
	Value json.RawMessage
	// Type is the value's cty type in cty's JSON type encoding; optional.
	Type      json.RawMessage
	Sensitive bool
}
