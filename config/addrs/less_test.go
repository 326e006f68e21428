package addrs

import (
	"math/rand/v2"
	"testing"
)

// String keys order as their quoted text does, whatever they hold: the
// fast comparison of plain keys agrees with it, also where one key is
// the other's prefix followed by a byte below or above the quote.
func TestLessOrdersStringKeysAsTheirText(t *testing.T) {
	alphabet := []string{"a", "b", " ", "!", "#", "0", "~", `"`, `\`, "\n", "é", "-"}
	rng := rand.New(rand.NewPCG(27, 1))
	key := func() StringKey {
		var k string
		for range rng.IntN(4) {
			k += alphabet[rng.IntN(len(alphabet))]
		}
		return StringKey(k)
	}
	for range 20000 {
		a, b := Instance{Resource{Endpoint, "e"}, key()}, Instance{Resource{Endpoint, "e"}, key()}
		if got, want := a.Less(b), keyText(a.Key) < keyText(b.Key); got != want {
			t.Fatalf("%s.Less(%s) = %v, want %v (their text's order)", a, b, got, want)
		}
	}
}

// Comparing plain string keys makes no string: a plan sorts its 10,000
// for_each instances twice.
func TestLessOfPlainStringKeysAllocatesNothing(t *testing.T) {
	a := Instance{Resource{Endpoint, "e"}, StringKey("h042-17")}
	b := Instance{Resource{Endpoint, "e"}, StringKey("h042-170")}
	if n := testing.AllocsPerRun(100, func() { a.Less(b) }); n != 0 {
		t.Errorf("Less of two plain string keys: %v allocations", n)
	}
}
