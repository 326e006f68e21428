package agent

import (
	"slices"
	"strings"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// filter is a pb.Filter made ready for matching; the zero filter matches
// every object.
type filter struct {
	prefixes []string
	kinds    []pb.Kind
	statuses []pb.Status
}

func filterOf(f *pb.Filter) filter {
	return filter{prefixes: f.GetPrefixes(), kinds: f.GetKinds(), statuses: f.GetStatuses()}
}

// match tells whether the object's address and kind match; the status is
// matched apart (matchStatus), since a deletion has none.
func (f filter) match(addr string, kind pb.Kind) bool {
	if len(f.kinds) > 0 && !slices.Contains(f.kinds, kind) {
		return false
	}
	if len(f.prefixes) == 0 {
		return true
	}
	for _, p := range f.prefixes {
		if strings.HasPrefix(addr, p) {
			return true
		}
	}
	return false
}

func (f filter) matchStatus(s pb.Status) bool {
	return len(f.statuses) == 0 || slices.Contains(f.statuses, s)
}

// matchObject matches an object whole, reading its status only when the
// filter names statuses.
func (f filter) matchObject(o *object) bool {
	return f.match(o.address, o.kind) && (len(f.statuses) == 0 || f.matchStatus(o.status()))
}
