package state

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// BenchmarkEncode1000 encodes a state of 1,000 endpoints as apply does once
// at its end (the state file, indented), and the same document with
// encoding/json's MarshalIndent, which Encode used to be, in the same run:
//
//	go test -run '^$' -bench Encode1000 ./state/
func BenchmarkEncode1000(b *testing.B) {
	s := New()
	for i := range 1000 {
		s.SetObject(testObject(b, "endpoint.e["+strconv.Itoa(i)+"]", i))
	}
	var ours, ref time.Duration
	for range b.N {
		start := time.Now()
		out, err := Encode(s)
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		start = time.Now()
		f, err := toJSON(s)
		if err != nil {
			b.Fatal(err)
		}
		old, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		ref += time.Since(start)
		if string(append(old, '\n')) != string(out) {
			b.Fatal("Encode differs from encoding/json's MarshalIndent")
		}
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "encode-µs")
	b.ReportMetric(float64(ref.Microseconds())/float64(b.N), "encoding/json-µs")
	b.ReportMetric(ours.Seconds()/ref.Seconds(), "ratio")
}
