// Package planner computes what apply must do to make the fabric match the
// configuration: the plan.
//
// Inputs are the evaluated configuration (config.Config), the state
// (state.State) and, unless refresh is off, the live objects the agent holds
// (Refresher) and its devices (DeviceInfo). The result is a Plan: one Change
// per object with an Action (create, update in place, replace, delete or
// no-op), the ActionReason that explains it to people, and the attribute
// paths that force replacement (RequiredReplace).
//
// # Unknown values
//
// Attributes known only after apply (id, qp_num, ...) are unknown in the
// configuration, and so is anything computed from them (pd =
// protection_domain.rxe.id). The configuration cannot be evaluated against
// the state's values, so the planner decides for each unknown attribute of
// an object already in the state: if none of the objects it depends on is
// being created or replaced in this plan, the attribute keeps its value from
// the state (what it was computed from has not changed); otherwise it is a
// change to a value known after apply, which forces replacement where the
// schema says so. This is Terraform's outcome for the same configuration.
//
// # Sensitive values
//
// A Change's BeforeValue and AfterValue hold every value, sensitive or
// not; its BeforeSensitive and AfterSensitive list the attributes whose
// value is sensitive (from a sensitive variable or sensitive(), see the
// config package), which planner/render shows as (sensitive value) and
// its JSON marks in before_sensitive and after_sensitive, as Terraform
// does.
// After's come from the configuration; Before's from the state object's
// SensitiveAttributes (which apply records from
// Change.SensitiveAttributes) and, for an object still configured, from
// the configuration, so that a state written before apply recorded them
// still hides them. A
// change only in a sensitive attribute is a change like any other; a
// change only of sensitivity, the value the same, is none.
//
// # Order
//
// Plan.Graph returns the operations of a plan as a DAG: creates and updates
// after the creates and updates of their dependencies (configuration
// dependencies); deletes before the deletes of what they depend on (state
// dependencies), so destroy runs in reverse; a replacement's delete before
// its create, or after it with create_before_destroy.
//
// # Agents
//
// An object lives on the host of its agent (config.Instance.Agent, "" for
// the local one; the state records it as state.Object.Agent). A Change
// carries both (Agent, PriorAgent), and one the configuration puts on
// another agent is replaced: destroyed through the old agent, made
// through the new. A Refresher reading several agents says whose each
// live object is (LiveObject.Agent) and whose it read (AgentScope): an
// object on an agent not read stays as the state records it. Device
// checks ask each object's own agent (Options.Devices). A plan that must
// destroy objects of an agent the configuration no longer declares is an
// error: the agent block is needed until they are destroyed.
//
// Rendering lives in the sibling package planner/render.
package planner
