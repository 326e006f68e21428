package state

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// decodeFast must accept only what decodeChecked accepts, and decode it to
// the same state: Decode's results must not depend on which path ran.
func checkFastAgrees(t *testing.T, data []byte) (fast bool) {
	t.Helper()
	fs, ok := decodeFast(data)
	if !ok {
		return false
	}
	cs, err := decodeChecked(data, "checked")
	if err != nil {
		t.Fatalf("the fast path accepted what encoding/json refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(fs, cs) {
		t.Fatalf("the fast path decodes differently:\nfast    %+v\nchecked %+v\nfrom %s", fs, cs, data)
	}
	return true
}

func TestDecodeFastAgreesWithChecked(t *testing.T) {
	big := New()
	for i := 0; i < 2000; i++ {
		o := testObject(t, fmt.Sprintf("endpoint.e[%d]", i), i)
		o.Dependencies = append(o.Dependencies, mustAddr(t, "listener.l"), mustAddr(t, "protection_domain.pd"))
		big.SetObject(o)
	}
	big.SetOutput("addr", &Output{Value: json.RawMessage(`"10.0.0.1"`), Type: json.RawMessage(`"string"`), Sensitive: true})
	enc, err := Encode(big)
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastAgrees(t, enc) {
		t.Fatal("the fast path refused a state Encode wrote")
	}
	fastSeeds := 0
	for _, seed := range decodeSeeds {
		if checkFastAgrees(t, []byte(seed)) {
			fastSeeds++
		}
	}
	if fastSeeds == 0 {
		t.Fatal("the fast path accepted none of the seeds")
	}
	// encoding/json's leniencies, which the fast path keeps, and attribute
	// text whose escapes and spacing compaction must leave alone.
	for _, doc := range []string{
		"{\"version\":1,\"lineage\":\"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11\",\"objects\":[{\"address\":\"endpoint.e\",\"type\":\"endpoint\",\"attributes\": { \"a\" : \"\\u00e9\\/\\\"x\\u2028\\ud800\" ,\n \"b\":[ 1.50 , -0e+3 ], \"c\": \"\xff\xfe\" } }]}",
		`{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","serial":1,"serial":2,"objects":[]}`,
		`{"Version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","oBjects":[{"address":"endpoint.e","type":"endpoint"}]}`,
		"{\"version\":1,\"lineage\":\"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11\",\"rdmaform_version\":\"\xff\",\"objects\":[]}",
	} {
		if !checkFastAgrees(t, []byte(doc)) {
			t.Errorf("the fast path refused %q", doc)
		}
	}
}

// FuzzDecodeFast: go test -run '^$' -fuzz FuzzDecodeFast -fuzztime 2m ./state/
func FuzzDecodeFast(f *testing.F) {
	for _, seed := range decodeSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastAgrees(t, data) })
}
