package apply

import (
	"context"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Fabric is what apply needs from the live fabric. The agent client
// implements it through an adapter. Every call is made with a context
// that is not cancelled by Ctrl-C, so that a call in flight completes and
// is recorded.
type Fabric interface {
	// Create makes the object at addr from spec. It is idempotent by
	// address and token: a retry with the same token returns the object
	// already made. The returned facts are recorded in the state.
	Create(ctx context.Context, addr addrs.Instance, spec Spec, token string) (state.Facts, error)
	// Update changes in place the attributes at changed (reconnect, probe,
	// accept.max_connections: those the schema does not mark as forcing
	// replacement).
	Update(ctx context.Context, addr addrs.Instance, spec Spec, changed []cty.Path) (state.Facts, error)
	// Delete disconnects and destroys the object at addr created with
	// token ("" when unknown). Deleting what is already gone succeeds.
	Delete(ctx context.Context, addr addrs.Instance, token string) error
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
	StartCreate(ctx context.Context, addr addrs.Instance, spec Spec, token string) (wait func() (state.Facts, error), err error)
}

// DeleteStarter is implemented by a fabric that batches deletes: the
// executor holds a parallelism slot only while StartDelete queues the
// delete, not while the batch's call disconnects.
type DeleteStarter interface {
	// StartDelete queues what Delete would do and returns how to wait for
	// the outcome, which is then Delete's. It is called with a context
	// that Ctrl-C does not cancel; when err is not nil nothing is left to
	// wait for.
	StartDelete(ctx context.Context, addr addrs.Instance, token string) (wait func() error, err error)
}
