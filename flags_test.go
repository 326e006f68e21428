package main

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// Every command accepts -no-color, as Terraform's do: users pass it out of
// habit, and scripts pass it to all of them.
func TestEveryCommandAcceptsNoColor(t *testing.T) {
	var names []string
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	variants := map[string][]string{"state": {"state list", "state show", "state rm", "state mv", "state pull", "state push"}, "agent": {"agent", "agent status", "agent stop"}}
	for _, name := range names {
		for _, cmd := range append([]string{name}, variants[name]...)[min(1, len(variants[name])):] {
			var out, errs bytes.Buffer
			args := append(strings.Fields(cmd), "-no-color", "-help")
			run(args, streams{In: strings.NewReader(""), Out: &out, Err: &errs})
			if strings.Contains(errs.String(), "flag provided but not defined") {
				t.Errorf("rdmaform %s -no-color: %s", cmd, strings.SplitN(errs.String(), "\n", 2)[0])
			}
		}
	}
}
