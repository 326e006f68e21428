package state

import (
	"bytes"
	"testing"
)

// FuzzDecode checks that Decode never panics, that every error names the
// source, and that whatever it accepts encodes to a document it decodes to
// the same bytes again.
func FuzzDecode(f *testing.F) {
	for _, seed := range decodeSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data, "fuzz.rdmastate")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("fuzz.rdmastate")) {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		enc, err := Encode(s)
		if err != nil {
			t.Fatalf("Encode of a decoded state: %v", err)
		}
		s2, err := Decode(enc, "re-encoded")
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		enc2, err := Encode(s2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", enc, enc2)
		}
		if !SameContent(s, s2) {
			t.Fatal("SameContent is false after a round trip")
		}
	})
}

var decodeSeeds = []string{
	``,
	`{}`,
	`{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","serial":3,"objects":[],"outputs":{}}`,
	`{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","serial":3,"rdmaform_version":"0.1.0",
	  "objects":[{"address":"endpoint.client[3]","type":"endpoint","schema_version":1,
	    "attributes":{"device":"mlx5_0","port":1},"dependencies":["listener.server","protection_domain.pd"],
	    "facts":{"agent_handle":"h-1","qp_num":123,"qp_type":"RC","local_address":"10.0.0.1","local_port":4791,
	      "status":"connected","created_at":"2026-01-02T03:04:05.123Z"}},
	   {"address":"listener.fanout[\"b\"]","type":"listener","schema_version":0,"attributes":null,"facts":{}}],
	  "outputs":{"addr":{"value":"10.0.0.1","type":"string"},"secret":{"value":{"a":[1,2]},"sensitive":true}}}`,
	`{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","objects":[{"address":"listener.l","type":"listener",
	  "attributes":{"accept":{"private_data":"x"},"port":1},"facts":{},"sensitive_attributes":[["accept","private_data"],["port"]]}]}`,
	`{"version":2,"rdmaform_version":"9.0.0"}`,
	`{"version":1,"lineage":"x"}`,
	`[1,2,3]`,
	`{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","objects":[{"address":"endpoint.a","type":"endpoint"},{"address":"endpoint.a","type":"endpoint"}]}`,
}
