package views

import pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"

// Status is the view of the status command: the agent's objects as a
// table, or with -json as one document (the agent's List answer). With
// -json its errors are diagnostics of the machine-readable UI (JSONView.Diagnostics),
// as plan's and apply's.
type Status interface {
	// Objects shows the agent's list; false when it could not be written
	// (said on the error stream).
	Objects(list *pb.ListResponse) bool
}
