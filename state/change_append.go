package state

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// appendObjectChange appends a put- or move-object record's JSON to b, as
// encoding/json writes changeJSON, without reflection: the journal
// writes one for every object apply makes, and the reflective encoder
// was most of the journal's CPU. ok is false when the record holds what
// this writer leaves to encoding/json (text it would escape, attributes
// it would compact, a time outside RFC 3339); b is then unchanged.
func appendObjectChange(b []byte, c Change) (_ []byte, ok bool) {
	start := len(b)
	fail := func() ([]byte, bool) { return b[:start], false }
	o := c.Object
	b = append(b, `{"op":`...)
	if b, ok = appendPlain(b, string(c.Op)); !ok {
		return fail()
	}
	if c.Op == OpMoveObject {
		b = append(b, `,"address":`...)
		if b, ok = appendPlain(b, c.Addr.String()); !ok {
			return fail()
		}
	}
	b = append(b, `,"object":{"address":`...)
	if b, ok = appendPlain(b, o.Addr.String()); !ok {
		return fail()
	}
	b = append(b, `,"type":`...)
	if b, ok = appendPlain(b, string(o.Addr.Kind)); !ok {
		return fail()
	}
	if o.Agent != "" {
		b = append(b, `,"agent":`...)
		if b, ok = appendPlain(b, o.Agent); !ok {
			return fail()
		}
	}
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, int64(o.SchemaVersion), 10)
	b = append(b, `,"attributes":`...)
	if !compactAndPlain(o.Attributes) {
		return fail()
	}
	b = append(b, rawOrNull(o.Attributes)...)
	if len(o.Dependencies) > 0 {
		b = append(b, `,"dependencies":[`...)
		for i, d := range o.Dependencies {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendPlain(b, d.String()); !ok {
				return fail()
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"facts":`...)
	if b, ok = appendFacts(b, o.Facts); !ok {
		return fail()
	}
	if len(o.SensitiveAttributes) > 0 {
		b = append(b, `,"sensitive_attributes":[`...)
		for i, path := range o.SensitiveAttributes {
			if i > 0 {
				b = append(b, ',')
			}
			if path == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '[')
			for j, step := range path {
				if j > 0 {
					b = append(b, ',')
				}
				if b, ok = appendPlain(b, step); !ok {
					return fail()
				}
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	if o.Tainted {
		b = append(b, `,"status":"`+statusTainted+`"`...)
	}
	return append(b, "}}"...), true
}

// appendFacts writes f as encoding/json does, its empty fields left out.
func appendFacts(b []byte, f Facts) (_ []byte, ok bool) {
	b = append(b, '{')
	first := true
	field := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	str := func(name, v string) {
		if v != "" && ok {
			field(name)
			b, ok = appendPlain(b, v)
		}
	}
	num := func(name string, v int64) {
		if v != 0 {
			field(name)
			b = strconv.AppendInt(b, v, 10)
		}
	}
	ok = true
	str("agent_handle", f.AgentHandle)
	str("agent_host", f.AgentHost)
	str("create_token", f.CreateToken)
	str("device", f.Device)
	num("port_num", int64(f.PortNum))
	num("qp_num", int64(f.QPNum))
	num("remote_qp_num", int64(f.RemoteQPNum))
	str("qp_type", f.QPType)
	str("local_address", f.LocalAddr)
	num("local_port", int64(f.LocalPort))
	str("remote_address", f.RemoteAddr)
	num("remote_port", int64(f.RemotePort))
	str("status", f.Status)
	num("reconnects", int64(f.Reconnects))
	if !ok {
		return b, false
	}
	if !f.CreatedAt.IsZero() {
		if y := f.CreatedAt.Year(); y < 0 || y > 9999 {
			return b, false // encoding/json refuses it; let it say so
		}
		field("created_at")
		b = append(b, '"')
		b = f.CreatedAt.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if f.Pending {
		field("pending")
		b = append(b, "true"...)
	}
	if d := f.Deposed; d != nil {
		field("deposed")
		b = append(b, `{"agent_handle":`...)
		if b, ok = appendPlain(b, d.AgentHandle); !ok {
			return b, false
		}
		if d.CreateToken != "" {
			b = append(b, `,"create_token":`...)
			if b, ok = appendPlain(b, d.CreateToken); !ok {
				return b, false
			}
		}
		if d.Agent != "" {
			b = append(b, `,"agent":`...)
			if b, ok = appendPlain(b, d.Agent); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendPlain quotes s when encoding/json would write it as it is but
// for a quote or a backslash, escaped as it escapes them (addresses with
// string keys hold quotes): printable ASCII without an HTML character.
func appendPlain(b []byte, s string) ([]byte, bool) {
	escapes := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			return b, false
		}
		escapes = escapes || c == '"' || c == '\\'
	}
	b = append(b, '"')
	if !escapes {
		b = append(b, s...)
		return append(b, '"'), true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"'), true
}

// compactAndPlain reports whether raw is JSON that encoding/json would
// copy as it is: no space between tokens, nothing it escapes (HTML
// characters, U+2028, U+2029), and valid.
func compactAndPlain(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true // written as null
	}
	if bytes.ContainsAny(raw, " \t\r\n<>&") || bytes.Contains(raw, []byte("\u2028")) || bytes.Contains(raw, []byte("\u2029")) {
		return false
	}
	return json.Valid(raw)
}
