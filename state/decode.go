package state

import (
	"runtime"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/uuid"
)

// Decode parses a state document. source names where data came from (a
// file name) and appears in every error, which is a *DecodeError.
//
// A state of 10,000 objects is about 12 MB, and decoding it is a large
// part of a no-change plan, so well-formed documents take a fast path: one
// pass of the JSON v2 decoder in its encoding/json-compatible mode (about
// three times faster than encoding/json here), then the objects converted
// in parallel. Anything the fast path does not accept (a syntax or type
// error, a newer format version, a duplicate address) goes through
// decodeChecked, so error messages are exactly those it always gave.
func Decode(data []byte, source string) (*State, error) {
	if s, ok := decodeFast(data); ok {
		return s, nil
	}
	return decodeChecked(data, source)
}

// decodeFast decodes a well-formed current document; ok is false for
// anything else.
func decodeFast(data []byte) (*State, bool) {
	var f fileJSON
	if err := jsonv2.Unmarshal(data, &f, jsonv1.DefaultOptionsV1()); err != nil {
		return nil, false
	}
	if f.Version == nil || *f.Version < 1 || *f.Version > FormatVersion || f.Lineage == "" {
		return nil, false
	}
	if _, err := uuid.Parse(f.Lineage); err != nil {
		return nil, false
	}
	objs := make([]*Object, len(f.Objects))
	var bad atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), max(1, len(f.Objects)/512))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(f.Objects); i += workers {
				oj := f.Objects[i]
				if oj == nil {
					bad.Store(true)
					return
				}
				// The decoder gave the attributes memory of their own;
				// compacting them in place validates them again.
				if attrs := (*jsontext.Value)(&oj.Attributes); len(*attrs) > 0 && attrs.Compact() != nil {
					bad.Store(true)
					return
				}
				o, err := objectFromParts(oj, true)
				if err != nil {
					bad.Store(true)
					return
				}
				objs[i] = o
			}
		}(w)
	}
	wg.Wait()
	if bad.Load() {
		return nil, false
	}
	s := &State{
		Lineage:         f.Lineage,
		Serial:          f.Serial,
		RdmaformVersion: f.RdmaformVersion,
		Objects:         make(map[string]*Object, len(objs)),
		Outputs:         make(map[string]*Output, len(f.Outputs)),
	}
	for _, o := range objs {
		k := o.Addr.String()
		if _, dup := s.Objects[k]; dup {
			return nil, false
		}
		s.Objects[k] = o
	}
	for n, oj := range f.Outputs {
		if oj == nil || !validOutputName(n) {
			return nil, false
		}
		s.Outputs[n] = &Output{Value: rawOrNull(oj.Value), Type: oj.Type, Sensitive: oj.Sensitive}
	}
	return s, true
}
