package command

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// stableJSON is m as protojson maps it (JSON field names in field order,
// enum names, zero values left out, bytes in base64), with two
// differences for the scripts that read status -json: 64-bit integers
// are JSON numbers, not protojson's strings, so that they compare as
// numbers (jq '.objects[] | select(.probe.lost > 0)'); the spacing is
// the same every time (protojson varies it on purpose), two-space
// indented; and the top level's lists are there even when empty.
func stableJSON(m proto.Message) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSONMessage(&b, m.ProtoReflect(), true); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writeJSONMessage writes m; with lists, its list fields even when empty
// (the top level's: "objects": [] rather than nothing when the agent holds
// nothing, so that jq '.objects[]' reads an empty agent as one).
func writeJSONMessage(b *bytes.Buffer, m protoreflect.Message, lists bool) error {
	b.WriteByte('{')
	fields := m.Descriptor().Fields()
	first := true
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) && !(lists && fd.IsList()) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(b, fd.JSONName())
		b.WriteByte(':')
		v := m.Get(fd)
		var err error
		switch {
		case fd.IsList():
			b.WriteByte('[')
			l := v.List()
			for j := 0; j < l.Len() && err == nil; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				err = writeJSONScalar(b, fd, l.Get(j))
			}
			b.WriteByte(']')
		case fd.IsMap():
			var keys []protoreflect.MapKey
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool { keys = append(keys, k); return true })
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			b.WriteByte('{')
			for j, k := range keys {
				if j > 0 {
					b.WriteByte(',')
				}
				writeJSONString(b, k.String())
				b.WriteByte(':')
				if err = writeJSONScalar(b, fd.MapValue(), v.Map().Get(k)); err != nil {
					break
				}
			}
			b.WriteByte('}')
		default:
			err = writeJSONScalar(b, fd, v)
		}
		if err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func writeJSONScalar(b *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			b.WriteString(`"NaN"`)
		case math.IsInf(f, 1):
			b.WriteString(`"Infinity"`)
		case math.IsInf(f, -1):
			b.WriteString(`"-Infinity"`)
		default:
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case protoreflect.StringKind:
		writeJSONString(b, v.String())
	case protoreflect.BytesKind:
		writeJSONString(b, base64.StdEncoding.EncodeToString(v.Bytes()))
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			writeJSONString(b, string(ev.Name()))
		} else {
			b.WriteString(strconv.Itoa(int(v.Enum())))
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return writeJSONMessage(b, v.Message(), false)
	default:
		return fmt.Errorf("status -json: field %s has an unsupported kind %s", fd.FullName(), fd.Kind())
	}
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}
