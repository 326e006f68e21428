package addrs

import (
	"sort"
	"testing"
)

func TestParseInstanceRoundTrip(t *testing.T) {
	for _, s := range []string{
		"endpoint.client",
		"endpoint.client[3]",
		`listener.fanout["b"]`,
		`protection_domain.pd0["with \"quote\""]`,
	} {
		a, err := ParseInstance(s)
		if err != nil {
			t.Fatalf("ParseInstance(%q): %v", s, err)
		}
		if got := a.String(); got != s {
			t.Errorf("ParseInstance(%q).String() = %q", s, got)
		}
	}
}

func TestParseInstanceRejects(t *testing.T) {
	for _, s := range []string{"", "endpoint", "qp.x", "endpoint.", "endpoint.1abc", "endpoint.a[", "endpoint.a[-1]", "endpoint.a[b]"} {
		if _, err := ParseInstance(s); err == nil {
			t.Errorf("ParseInstance(%q) succeeded, want an error", s)
		}
	}
}

func TestLessOrdersByKindNameAndNumericKey(t *testing.T) {
	in := []string{"endpoint.b[10]", "endpoint.b[2]", "listener.z", "protection_domain.pd", "endpoint.a"}
	var as []Instance
	for _, s := range in {
		a, err := ParseInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	sort.Slice(as, func(i, j int) bool { return as[i].Less(as[j]) })
	want := []string{"protection_domain.pd", "listener.z", "endpoint.a", "endpoint.b[2]", "endpoint.b[10]"}
	for i, a := range as {
		if a.String() != want[i] {
			t.Fatalf("order = %v, want %v", as, want)
		}
	}
}
