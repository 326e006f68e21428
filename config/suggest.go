package config

import (
	"fmt"

	"github.com/agext/levenshtein"
)

// DidYouMean returns ` Did you mean "x"?` for the candidate nearest to
// given, or "" when none is close.
func DidYouMean(given string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := levenshtein.Distance(given, c, nil); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}
