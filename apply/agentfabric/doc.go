// Package agentfabric adapts the agent's client (apply/agent/client) to the
// interfaces plan and apply are written against: planner.Refresher (List),
// planner.DeviceInfo (Devices, plus this host's routing to tell which
// device serves an address) and apply.Fabric (Create*, Update, Delete).
//
// An endpoint's Create returns once the agent reports it established (or
// fails, naming the librdmacm call and errno), watching the agent's change
// stream rather than polling: one stream serves every endpoint of an
// apply. A create that fails is deleted again, so that the agent does not
// keep retrying an object the state does not record.
package agentfabric
