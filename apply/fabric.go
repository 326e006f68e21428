package apply

import (
	"context"
	"errors"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Fabric is what apply needs from the live fabric. The agent client
// implements it through an adapter. Every call is made with a context
// that is not cancelled by Ctrl-C, so that a call in flight completes and
// is recorded.
type Fabric interface {
	// Create makes the object h names from spec. It is idempotent by
	// name and token: a retry with the same token returns the object
	// already made. The returned facts are recorded in the state.
	Create(ctx context.Context, h Handle, spec Spec, token string) (state.Facts, error)
	// Update changes in place the attributes at changed (reconnect, probe,
	// accept.max_connections: those the schema does not mark as forcing
	// replacement).
	Update(ctx context.Context, h Handle, spec Spec, changed []cty.Path) (state.Facts, error)
	// Delete disconnects and destroys the object h names, created with
	// token ("" when unknown). Deleting what is already gone succeeds.
	Delete(ctx context.Context, h Handle, token string) error
}

// Handle names an object on the fabric: its address in the configuration
// and the name the fabric holds it by. The name is the address, except
// for a create_before_destroy replacement, which is made while the object
// it replaces still holds the address: it gets the address with a suffix
// (see replacementName), and keeps that name until it is replaced or
// destroyed (the state records it as the agent handle).
//
// Agent is the key of the agent that holds (or is to make) the object, ""
// for the local agent: a fabric spanning several hosts routes the call to
// that agent. Creates and updates take it from the configuration, deletes
// from the state, so a replacement moving an object to another agent
// destroys it on the old one and makes it on the new.
type Handle struct {
	Addr  addrs.Instance
	Name  string
	Agent string
}

// HandleOf is the handle of an object named by its address.
func HandleOf(a addrs.Instance) Handle { return Handle{Addr: a, Name: a.String()} }

// HandleIn is the handle of an object of a configuration whose objects the
// fabric holds in namespace: the address qualified by it
// (endpoint.client[0]@storage-a), or the address alone when namespace is
// "".
func HandleIn(a addrs.Instance, namespace string) Handle {
	return Handle{Addr: a, Name: planner.AgentName(a, namespace)}
}

// handleOf is the handle the state records for o.
func handleOf(o *state.Object) Handle {
	return Handle{Addr: o.Addr, Name: planner.AgentHandle(o), Agent: o.Agent}
}

// replacementName is the name a create_before_destroy replacement of
// prior takes: base (the object's usual name) when prior holds another
// name (an earlier replacement), else base with a suffix from the new
// object's create token, which no other object has.
func replacementName(base string, prior *state.Object, token string) string {
	if prior == nil || handleOf(prior).Name != base {
		return base
	}
	return suffixed(base, token)
}

// suffixed is base with a suffix from token, which no other object has.
func suffixed(base, token string) string {
	suffix := token
	if len(suffix) > 8 {
		suffix = suffix[:8]
	}
	return base + "#" + suffix
}

// Spec is what the configuration declares for one object, with
// references to other objects resolved (ProtectionDomain names the
// protection domain's id). Exactly one field is set.
type Spec struct {
	ProtectionDomain *config.ProtectionDomain
	Listener         *config.Listener
	Endpoint         *config.Endpoint
}

// Starter is implemented by a fabric whose Create is, for some objects, a
// short call followed by a long wait (an endpoint connecting). The
// executor holds a parallelism slot only for the call, so -parallelism
// bounds the calls in flight rather than the connections being
// established, which the fabric makes concurrently.
type Starter interface {
	// StartCreate makes the call Create would make and returns how to
	// wait for the outcome, which is then Create's. When err is not nil
	// nothing is left to wait for. Unlike the other calls' contexts, ctx
	// is cancelled when the walk stops (Ctrl-C): StartCreate returns
	// ErrNotStarted if that happens before it has made its call; the call
	// and the wait must not be cut short by it.
	StartCreate(ctx context.Context, h Handle, spec Spec, token string) (wait func() (state.Facts, error), err error)
}

// DeleteStarter is implemented by a fabric that batches deletes: the
// executor holds a parallelism slot only while StartDelete queues the
// delete, not while the batch's call disconnects.
type DeleteStarter interface {
	// StartDelete queues what Delete would do and returns how to wait for
	// the outcome, which is then Delete's. It is called with a context
	// that Ctrl-C does not cancel; when err is not nil nothing is left to
	// wait for.
	StartDelete(ctx context.Context, h Handle, token string) (wait func() error, err error)
}

// Reconnecter is implemented by a fabric whose endpoints reconnect by
// themselves (with a reconnect policy) when their listener is replaced.
type Reconnecter interface {
	// AwaitReconnect waits for the endpoint h names to be established on
	// a connection newer than the one the state recorded with reconnects
	// (state.Facts.Reconnects) and returns its facts. When ctx ends
	// (Ctrl-C) it returns an error wrapping ErrCancelled.
	AwaitReconnect(ctx context.Context, h Handle, spec Spec, reconnects int) (state.Facts, error)
}

// ErrFabricGone is what a Fabric's error wraps when the fabric itself is
// gone (the agent exited or is stopping): apply then starts no further
// operation on that agent, as every one would fail the same way; those of
// other agents go on (see Report.GoneAgents).
var ErrFabricGone = errors.New("the fabric is gone")
