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
}

func filterOf(f *pb.Filter) filter {
	return filter{prefixes: f.GetPrefixes(), kinds: f.GetKinds()}
}

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
