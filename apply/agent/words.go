package agent

import (
	"strings"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// StatusWord is a status as rdmaform prints it: "established".
func StatusWord(s pb.Status) string {
	if s == pb.Status_STATUS_UNSPECIFIED {
		return "unknown"
	}
	return strings.ToLower(s.String())
}

// KindWord is a kind as configuration addresses spell it:
// "protection_domain", "listener", "endpoint", "connection".
func KindWord(k pb.Kind) string {
	if k == pb.Kind_KIND_UNSPECIFIED {
		return "unknown"
	}
	return strings.ToLower(k.String())
}
