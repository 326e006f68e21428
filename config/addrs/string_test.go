package addrs

import (
	"strconv"
	"strings"
	"testing"
)

// An instance's name is its block's, then its key as HCL writes it (a
// quoted string, or a number), made in one allocation: a plan of 10,000
// objects names each several times.
func TestInstanceString(t *testing.T) {
	r := Resource{Kind: Endpoint, Name: "e"}
	for _, k := range []Key{NoKey, IntKey(0), IntKey(-3), IntKey(1234567), StringKey(""), StringKey("h000-0"), StringKey(`a"b\c`), StringKey("é\n\t\x00"), StringKey(strings.Repeat("long", 40))} {
		want := "endpoint.e"
		switch k := k.(type) {
		case IntKey:
			want += "[" + strconv.Itoa(int(k)) + "]"
		case StringKey:
			want += "[" + strconv.Quote(string(k)) + "]"
		}
		if got := r.Instance(k).String(); got != want {
			t.Errorf("%#v: %q, want %q", k, got, want)
		}
		if k != nil && keyText(k) != strings.TrimPrefix(want, "endpoint.e") {
			t.Errorf("%#v: key text %q", k, keyText(k))
		}
	}
	a := r.Instance(StringKey("h000-0"))
	if n := testing.AllocsPerRun(100, func() { _ = a.String() }); n != 1 {
		t.Errorf("String of %s made %v allocations, want 1", a, n)
	}
}
