// Package addrs names the objects rdmaform manages, in configuration terms:
// endpoint.client, endpoint.client[3], listener.fanout["b"].
package addrs

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the block type an object is declared with.
type Kind string

const (
	ProtectionDomain Kind = "protection_domain"
	Listener         Kind = "listener"
	Endpoint         Kind = "endpoint"
)

// Kinds lists every managed kind in the order objects are created:
// protection domains first, then listeners, then endpoints.
var Kinds = []Kind{ProtectionDomain, Listener, Endpoint}

func (k Kind) valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Key is an instance key: none, an integer (count) or a string (for_each).
// Its text, as HCL writes it after the block's name ("[3]", "[\"a\"]"),
// is appended to a buffer, so that an instance is named in one allocation.
type Key interface{ appendKey(b []byte) []byte }

// NoKey is the key of an object declared without count or for_each.
var NoKey Key

// IntKey is the key of one instance of a block with count.
type IntKey int

// StringKey is the key of one instance of a block with for_each.
type StringKey string

func (k IntKey) appendKey(b []byte) []byte {
	return append(strconv.AppendInt(append(b, '['), int64(k), 10), ']')
}

func (k StringKey) appendKey(b []byte) []byte {
	return append(strconv.AppendQuote(append(b, '['), string(k)), ']')
}

// KeyValue is k as Terraform's JSON outputs give an instance's index: a
// number, a string, or nil without a key.
func KeyValue(k Key) any {
	switch k := k.(type) {
	case IntKey:
		return int(k)
	case StringKey:
		return string(k)
	}
	return nil
}

// Resource is a block: kind and name, without an instance key.
type Resource struct {
	Kind Kind
	Name string
}

func (r Resource) String() string { return string(r.Kind) + "." + r.Name }

// Instance returns the address of one instance of r.
func (r Resource) Instance(k Key) Instance { return Instance{Resource: r, Key: k} }

// Instance is one managed object: a resource and, with count or for_each,
// its key.
type Instance struct {
	Resource
	Key Key
}

func (a Instance) String() string {
	if a.Key == nil {
		return a.Resource.String()
	}
	// Built in one buffer: a plan of 10,000 objects names each several
	// times, and concatenating the parts made four strings of each name.
	var buf [64]byte
	b := append(append(append(buf[:0], a.Kind...), '.'), a.Name...)
	switch k := a.Key.(type) { // concrete calls: buf stays on the stack
	case IntKey:
		b = k.appendKey(b)
	case StringKey:
		b = k.appendKey(b)
	}
	return string(b)
}

// Less orders addresses by kind (creation order), name, then key, so that
// listings and plans are stable.
func (a Instance) Less(b Instance) bool {
	if a.Kind != b.Kind {
		return kindIndex(a.Kind) < kindIndex(b.Kind)
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	ai, aInt := a.Key.(IntKey)
	bi, bInt := b.Key.(IntKey)
	if aInt && bInt {
		return ai < bi
	}
	as, aStr := a.Key.(StringKey)
	bs, bStr := b.Key.(StringKey)
	if aStr && bStr && plainKey(as) && plainKey(bs) {
		return plainQuotedLess(string(as), string(bs))
	}
	return keyText(a.Key) < keyText(b.Key)
}

// plainKey says whether strconv.Quote writes k as itself between quotes:
// printable ASCII but for the quote and the backslash.
func plainKey(k StringKey) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// plainQuotedLess is, for plain keys, strconv.Quote(a) < strconv.Quote(b)
// without making either string: a plan sorting 10,000 for_each instances
// made them hundreds of thousands of times.
func plainQuotedLess(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	// One is the other's prefix: the shorter one's closing quote meets
	// the longer one's next byte.
	switch {
	case len(a) < len(b):
		return '"' < b[len(a)]
	case len(a) > len(b):
		return a[len(b)] < '"'
	}
	return false
}

func keyText(k Key) string {
	if k == nil {
		return ""
	}
	return string(k.appendKey(nil))
}

func kindIndex(k Kind) int {
	for i, v := range Kinds {
		if v == k {
			return i
		}
	}
	return len(Kinds)
}

// ParseInstance parses an address as users write it on the command line
// (-target, -replace, state mv): kind.name, kind.name[N] or kind.name["key"].
func ParseInstance(s string) (Instance, error) {
	kind, rest, ok := strings.Cut(s, ".")
	if !ok || !Kind(kind).valid() {
		return Instance{}, fmt.Errorf("invalid address %q: it must start with a kind (protection_domain, listener or endpoint), a dot and a name", s)
	}
	name, keyPart := rest, ""
	if i := strings.IndexByte(rest, '['); i >= 0 {
		name, keyPart = rest[:i], rest[i:]
	}
	if !validName(name) {
		return Instance{}, fmt.Errorf("invalid address %q: %q is not a valid name (letters, digits, underscores and dashes, starting with a letter or underscore)", s, name)
	}
	a := Instance{Resource: Resource{Kind: Kind(kind), Name: name}}
	if keyPart == "" {
		return a, nil
	}
	if !strings.HasSuffix(keyPart, "]") {
		return Instance{}, fmt.Errorf("invalid address %q: unclosed index bracket", s)
	}
	inner := keyPart[1 : len(keyPart)-1]
	if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
		a.Key = IntKey(n)
		return a, nil
	}
	str, err := strconv.Unquote(inner)
	if err != nil || !strings.HasPrefix(inner, `"`) {
		return Instance{}, fmt.Errorf("invalid address %q: an index is a non-negative integer or a quoted string", s)
	}
	a.Key = StringKey(str)
	return a, nil
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for i, r := range n {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// ValidName reports whether n can name a block: letters, digits,
// underscores and dashes, starting with a letter or underscore.
func ValidName(n string) bool { return validName(n) }
