package planner

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
)

// decodeAttributes decodes a state object's attributes (cty's JSON form of
// the kind's object type) guided by the schema. It does what
// ctyjson.Unmarshal does for these types several times faster, with a
// scanner that knows the shape (an object of primitives and nested objects
// of primitives), which matters for a no-change plan of 10,000 objects.
// Attributes absent from the JSON are null; unknown names are an error, as
// in ctyjson, except those with a default, which take it.
func decodeAttributes(b *config.Block, raw []byte) (cty.Value, error) {
	v, _, err := decodeFields(b, raw)
	return v, err
}

// fields are a decoded object's attribute values, and its nested blocks'
// fields, kept so that the diff reads them by the schema's order rather
// than with cty's GetAttr (which normalises the name to NFC each time).
// A null object has nil fields.
type fields struct {
	b      *config.Block
	vals   []cty.Value // b.Attributes' values, then b.Blocks'
	blocks []*fields   // b.Blocks' fields (nil for a null block)

	// val is the object as a cty value, made on first use (value): for a
	// state object the diff reads only vals, and cty.ObjectVal's maps
	// were a fifth of the CPU of a no-change plan of 10,000 objects that
	// never needs them. Nested blocks' are made as they are decoded (for
	// their parent's vals), shared between objects (nestedCache).
	once sync.Once
	val  cty.Value
}

// value is the object f holds, made once; safe for concurrent use.
func (f *fields) value() cty.Value {
	f.once.Do(func() {
		if f.val == cty.NilVal {
			f.val = f.object(make(map[string]cty.Value, len(f.vals)))
		}
	})
	return f.val
}

// object builds the object from vals, through m (emptied first), which
// cty.ObjectVal copies.
func (f *fields) object(m map[string]cty.Value) cty.Value {
	clear(m)
	nAttrs := len(f.b.Attributes)
	for i, a := range f.b.Attributes {
		m[a.Name] = f.vals[i]
	}
	for i, nb := range f.b.Blocks {
		m[nb.Name] = f.vals[nAttrs+i]
	}
	return cty.ObjectVal(m)
}

// objectOf is the object f holds, of block b: null when f is nil.
func objectOf(b *config.Block, f *fields) cty.Value {
	if f == nil {
		return cty.NullVal(b.ImpliedType())
	}
	return f.value()
}

// attr returns the named attribute (or nested block) of v, through f when
// it is known.
func (f *fields) attr(v cty.Value, name string) cty.Value {
	if f != nil {
		if a, ok := f.named(name); ok {
			return a
		}
	}
	return v.GetAttr(name)
}

// named returns the attribute (or nested block) name, if f's block has
// it.
func (f *fields) named(name string) (cty.Value, bool) {
	if i := attrIndex(f.b, name); i >= 0 {
		return f.vals[i], true
	}
	if i := blockIndex(f.b, name); i >= 0 {
		return f.vals[len(f.b.Attributes)+i], true
	}
	return cty.NilVal, false
}

// attrAt returns v's attribute b.Attributes[i] (name), through f when it
// is known; f is of the block b.
func (f *fields) attrAt(v cty.Value, i int, name string) cty.Value {
	if f != nil {
		return f.vals[i]
	}
	return v.GetAttr(name)
}

// blockAt returns v's nested block b.Blocks[i] (name) and its fields.
func (f *fields) blockAt(v cty.Value, i int, name string) (cty.Value, *fields) {
	if f != nil {
		return f.vals[len(f.b.Attributes)+i], f.blocks[i]
	}
	return v.GetAttr(name), nil
}

func (f *fields) block(name string) *fields {
	if f == nil {
		return nil
	}
	if i := blockIndex(f.b, name); i >= 0 {
		return f.blocks[i]
	}
	return nil
}

// decodeFields is decodeAttributes that also returns the fields.
func decodeFields(b *config.Block, raw []byte) (cty.Value, *fields, error) {
	return decodeFieldsShared(b, raw, nil)
}

// nestedCache holds, for one goroutine, decoded nested blocks by their
// exact JSON text, and each block's scratch map. The objects of one
// configuration block mostly share their qp, connect and reconnect
// blocks, and cty values are immutable, so decoding each distinct text
// once saves most of the work (and garbage) of decoding a large state.
type nestedCache map[*config.Block]*blockCache

type blockCache struct {
	byText map[string]decodedBlock
	// scratch is the map handed to cty.ObjectVal, which copies it: one
	// per block, cleared for each object, rather than one per object.
	scratch map[string]cty.Value
}

type decodedBlock struct {
	val    cty.Value
	fields *fields
}

// decodeFieldsShared is decodeFields that shares nested blocks through
// cache (nil: no sharing).
func decodeFieldsShared(b *config.Block, raw []byte, cache nestedCache) (cty.Value, *fields, error) {
	f, err := decodeObject(b, raw, cache)
	if err != nil {
		return cty.NilVal, nil, err
	}
	return objectOf(b, f), f, nil
}

// decodeObject is decodeFieldsShared without making the object's value
// (see fields.value); nil fields for a null object.
func decodeObject(b *config.Block, raw []byte, cache nestedCache) (*fields, error) {
	s := &scanner{data: raw, cache: cache}
	f, err := s.object(b)
	if err != nil {
		return nil, err
	}
	if s.skipSpace(); s.pos != len(s.data) {
		return nil, fmt.Errorf("unexpected data after the object at offset %d", s.pos)
	}
	return f, nil
}

type scanner struct {
	data  []byte
	pos   int
	cache nestedCache
}

// nested decodes a nested block's object and makes its value, through
// the cache when the scanner has one.
func (s *scanner) nested(b *config.Block) (cty.Value, *fields, error) {
	if s.cache == nil {
		return s.nestedValue(b)
	}
	s.skipSpace()
	end := objectEnd(s.data, s.pos)
	if end < 0 {
		return s.nestedValue(b) // malformed: let object say where
	}
	bc := s.cache.of(b)
	if d, ok := bc.byText[string(s.data[s.pos:end])]; ok {
		s.pos = end
		return d.val, d.fields, nil
	}
	start := s.pos
	v, f, err := s.nestedValue(b)
	if err != nil || s.pos != end {
		return v, f, err
	}
	if bc.byText == nil {
		bc.byText = map[string]decodedBlock{}
	}
	bc.byText[string(s.data[start:end])] = decodedBlock{v, f}
	return v, f, nil
}

// nestedValue decodes a nested block's object and makes its value, in
// the cache's scratch map when the scanner has one.
func (s *scanner) nestedValue(b *config.Block) (cty.Value, *fields, error) {
	f, err := s.object(b)
	if err != nil || f == nil {
		return objectOf(b, f), f, err
	}
	var m map[string]cty.Value
	if s.cache != nil {
		bc := s.cache.of(b)
		if bc.scratch == nil {
			bc.scratch = make(map[string]cty.Value, len(f.vals))
		}
		m = bc.scratch
	} else {
		m = make(map[string]cty.Value, len(f.vals))
	}
	f.val = f.object(m)
	return f.val, f, nil
}

// of returns b's entry, made on first use.
func (c nestedCache) of(b *config.Block) *blockCache {
	bc := c[b]
	if bc == nil {
		bc = &blockCache{}
		c[b] = bc
	}
	return bc
}

// objectEnd returns the offset just past the JSON object starting at pos,
// or -1 when there is none or it does not end.
func objectEnd(data []byte, pos int) int {
	if pos >= len(data) || data[pos] != '{' {
		return -1
	}
	depth := 0
	for i := pos; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{s.pos}, args...)...)
}

// literal consumes word (null, true, false) if it comes next.
func (s *scanner) literal(word string) bool {
	if len(s.data)-s.pos >= len(word) && string(s.data[s.pos:s.pos+len(word)]) == word {
		s.pos += len(word)
		return true
	}
	return false
}

// object decodes an object of block b into its fields (nil: null),
// without making its value.
func (s *scanner) object(b *config.Block) (*fields, error) {
	s.skipSpace()
	if s.literal("null") {
		return nil, nil
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return nil, s.errorf("an object is required")
	}
	s.pos++
	nAttrs := len(b.Attributes)
	f := &fields{b: b, vals: make([]cty.Value, nAttrs+len(b.Blocks))}
	for first := true; ; first = false {
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == '}' {
			s.pos++
			break
		}
		if !first {
			if s.pos >= len(s.data) || s.data[s.pos] != ',' {
				return nil, s.errorf("',' or '}' expected")
			}
			s.pos++
			s.skipSpace()
		}
		name, err := s.str()
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.errorf("':' expected")
		}
		s.pos++
		if i := attrIndex(b, name); i >= 0 {
			v, err := s.primitive(b.Attributes[i].Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			f.vals[i] = v
		} else if i := blockIndex(b, name); i >= 0 {
			v, nf, err := s.nested(b.Blocks[i].Block)
			if err != nil {
				return nil, fmt.Errorf("%s.%v", name, err)
			}
			f.vals[nAttrs+i] = v
			if nf != nil {
				if f.blocks == nil {
					f.blocks = make([]*fields, len(b.Blocks))
				}
				f.blocks[i] = nf
			}
		} else {
			return nil, fmt.Errorf("unsupported attribute %q", name)
		}
	}
	if f.blocks == nil && len(b.Blocks) > 0 {
		f.blocks = make([]*fields, len(b.Blocks))
	}
	for i, a := range b.Attributes {
		if f.vals[i] == cty.NilVal {
			// An attribute with a default that the state lacks was added
			// to the schema since (probe.mode): the object was made with
			// what is now its default, so no change is planned for it.
			f.vals[i] = cty.NullVal(a.Type)
			if a.Default != cty.NilVal {
				f.vals[i] = a.Default
			}
		}
	}
	for i, nb := range b.Blocks {
		if f.vals[nAttrs+i] == cty.NilVal {
			f.vals[nAttrs+i] = cty.NullVal(nb.Block.ImpliedType())
		}
	}
	return f, nil
}

func attrIndex(b *config.Block, name string) int {
	for i, a := range b.Attributes {
		if a.Name == name {
			return i
		}
	}
	return -1
}

func blockIndex(b *config.Block, name string) int {
	for i, nb := range b.Blocks {
		if nb.Name == name {
			return i
		}
	}
	return -1
}

// str reads a JSON string; escapes are rare in attributes and go through
// encoding/json.
func (s *scanner) str() (string, error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return "", s.errorf("a string is required")
	}
	start := s.pos
	escaped := false
	for i := s.pos + 1; i < len(s.data); i++ {
		switch s.data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			s.pos = i + 1
			if !escaped {
				return string(s.data[start+1 : i]), nil
			}
			var out string
			if err := json.Unmarshal(s.data[start:i+1], &out); err != nil {
				return "", err
			}
			return out, nil
		}
	}
	return "", s.errorf("unterminated string")
}

func (s *scanner) primitive(ty cty.Type) (cty.Value, error) {
	s.skipSpace()
	if s.literal("null") {
		return cty.NullVal(ty), nil
	}
	switch ty {
	case cty.String:
		str, err := s.str()
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(str), nil
	case cty.Number:
		start := s.pos
		for s.pos < len(s.data) && (s.data[s.pos] >= '0' && s.data[s.pos] <= '9' || s.data[s.pos] == '-' || s.data[s.pos] == '+' || s.data[s.pos] == '.' || s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
			s.pos++
		}
		text := string(s.data[start:s.pos])
		if text == "" {
			return cty.NilVal, s.errorf("a number is required")
		}
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return cty.NumberIntVal(n), nil
		}
		return cty.ParseNumberVal(text)
	case cty.Bool:
		switch {
		case s.literal("true"):
			return cty.True, nil
		case s.literal("false"):
			return cty.False, nil
		}
		return cty.NilVal, s.errorf("a bool is required")
	}
	return cty.NilVal, fmt.Errorf("unsupported type %s", ty.FriendlyName())
}
