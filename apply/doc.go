// Package apply carries out a plan against the fabric: a dependency-ordered
// walk of the plan's operations (planner.Plan.Graph), at most Parallelism
// at a time, each completed change recorded durably in the state before it
// is reported.
//
// The fabric is reached through the small Fabric interface, which the
// agent client satisfies through an adapter; tests use fakes.
//
// A failed operation keeps what succeeded, and the operations that depend
// on it are skipped with one note naming them. When the context is
// cancelled (Ctrl-C) no new operation starts, the ones in flight finish
// (their fabric calls do not see the cancellation) and are recorded, and
// the result lists what was not started.
//
// A plan may span several agents: each Handle names the agent of its
// object (the configuration's for creates and updates, the state's for
// deletes), a fabric spanning them routes by it, and the state records
// each object's agent. When one agent's fabric is gone (ErrFabricGone),
// no further operation starts on it while the other agents' go on;
// Report.GoneAgents names those that went.
package apply
