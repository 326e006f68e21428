package planner

// ActionReason explains an Action to people; it never changes what apply
// does.
type ActionReason string

const (
	ReasonNone ActionReason = ""
	// ReasonCannotUpdate: an attribute that forces replacement changed
	// (see Change.RequiredReplace).
	ReasonCannotUpdate ActionReason = "replace_because_cannot_update"
	// ReasonReplaceByRequest: -replace named the object.
	ReasonReplaceByRequest ActionReason = "replace_by_request"
	// ReasonTainted: the state marks the object tainted (rdmaform taint).
	ReasonTainted ActionReason = "replace_because_tainted"
	// ReasonFailed: the agent holds the object but reports it failed for
	// good (an error, a rejected connect, a disconnect without a
	// reconnect policy: Change.LiveStatus says which): it is replaced.
	ReasonFailed ActionReason = "replace_because_failed"
	// ReasonReplaceByTriggers: lifecycle { replace_triggered_by }
	// references an object the plan updates or replaces.
	ReasonReplaceByTriggers ActionReason = "replace_by_triggers"
	// ReasonListenerReplaced: an endpoint without a reconnect policy whose
	// listener is replaced: its connection would end for good.
	ReasonListenerReplaced ActionReason = "replace_because_listener_replaced"
	// ReasonListenerReconnect: an endpoint with a reconnect policy whose
	// listener is replaced: it reconnects by itself, on a new connection
	// (Change.Reconnects).
	ReasonListenerReconnect ActionReason = "update_because_listener_replaced"
	// ReasonGone: the state records the object but the agent no longer
	// holds it (agent restarted, device removed): it is created again.
	ReasonGone ActionReason = "create_because_gone"
	// ReasonInterruptedApply: an apply that was killed asked the agent
	// for the object (the state records it as pending) and the agent
	// holds it: the plan adopts it (an import).
	ReasonInterruptedApply ActionReason = "import_because_interrupted_apply"
	// ReasonNoConfig: the object is in the state but not in the
	// configuration.
	ReasonNoConfig ActionReason = "delete_because_no_resource_config"
	// ReasonNoKey: the block still exists but no longer has this
	// instance key (count or for_each shrank).
	ReasonNoKey ActionReason = "delete_because_no_instance_key"
	// ReasonWrongRepetition: the block still exists, but its instances
	// are keyed otherwise (an index where it has no count, a key where it
	// has no for_each, none where it has either).
	ReasonWrongRepetition ActionReason = "delete_because_wrong_repetition"
	// ReasonDestroyPlan: -destroy.
	ReasonDestroyPlan ActionReason = "delete_because_destroy_plan"
)
