package config

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// MaxAddressBytes bounds an instance's address (endpoint.client["key"]):
// it names the object in the agent, in state and on every screen. The
// agent takes names of up to 512 bytes, which leaves room for its
// "@namespace" and "#suffix".
const MaxAddressBytes = 256

// checkInstanceName refuses an instance whose address the agent would
// refuse or that would surprise where it is shown or matched: a for_each
// key with a character that is not printable (a control character would
// reach terminals as it is), starting with "/" or with ".." between
// slashes (status prefixes and accepted connections' names split at
// "/"), or an address over MaxAddressBytes. It reports at the for_each
// expression, or at the block for a long name.
func checkInstanceName(r *Resource, key addrs.Key) *hcl.Diagnostic {
	addr := addrs.Instance{Resource: r.Addr, Key: key}.String()
	bad := func(subject hcl.Range, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid instance name", Detail: detail, Subject: subject.Ptr()}
	}
	if k, ok := key.(addrs.StringKey); ok && r.ForEach != nil {
		s := string(k)
		rng := r.ForEach.Range()
		for _, c := range s {
			if !unicode.IsPrint(c) {
				return bad(rng, fmt.Sprintf("The for_each key %q holds the character %U, which is not printable: keys name objects on terminals and in logs.", s, c))
			}
		}
		switch {
		case strings.HasPrefix(s, "/"):
			return bad(rng, fmt.Sprintf("The for_each key %q starts with \"/\": a key may hold \"/\", but not begin with it.", s))
		case slices.Contains(strings.Split(s, "/"), ".."):
			return bad(rng, fmt.Sprintf("The for_each key %q holds \"..\" between slashes, which reads as a path.", s))
		}
		if len(addr) > MaxAddressBytes {
			return bad(rng, fmt.Sprintf("The address %.60s... is %d bytes long; an address may be at most %d bytes: use a shorter for_each key.", addr, len(addr), MaxAddressBytes))
		}
	}
	if len(addr) > MaxAddressBytes {
		return bad(r.DeclRange, fmt.Sprintf("The address %.60s... is %d bytes long; an address may be at most %d bytes: use a shorter name.", addr, len(addr), MaxAddressBytes))
	}
	return nil
}
