package state

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// The journal's own writer writes what encoding/json writes, byte for
// byte, or leaves the record to it.
func TestAppendObjectChangeWritesWhatEncodingJSONWrites(t *testing.T) {
	loc := time.FixedZone("X", 5*3600+1800)
	var objects []*Object
	for i := range 14 {
		o := testObject(t, "endpoint.e["+strconv.Itoa(i)+"]", i)
		switch i {
		case 1:
			o.Facts = Facts{}
		case 2:
			o.Facts.CreatedAt = time.Date(2026, 11, 30, 1, 2, 3, 450000000, time.UTC)
		case 3:
			o.Facts.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 6, loc)
		case 4:
			o.Facts.Pending, o.Facts.Reconnects, o.Facts.QPNum, o.Facts.RemoteQPNum = true, 7, 4294967295, 18
		case 5:
			o.Facts.Deposed = &DeposedObject{AgentHandle: "endpoint.e[5]#1a2b3c4d", CreateToken: "tok"}
		case 6:
			o.Facts.Deposed = &DeposedObject{AgentHandle: "endpoint.e[6]"}
			o.Tainted = true
		case 7:
			o.SensitiveAttributes = [][]string{{"connect", "private_data"}, {"tags"}}
		case 8:
			o.Attributes = json.RawMessage(`{"private_data":"a b"}`) // a space: left to encoding/json
		case 9:
			o.Facts.Status = "<html>" // escaped by encoding/json: left to it
		case 10:
			o.Attributes = nil
		case 11:
			o.Facts.CreatedAt = time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC) // refused by encoding/json
		case 12:
			o.Agent = "agent.compute"
		case 13:
			o.Agent = `agent.storage["s\\1"]` // quotes and a backslash, escaped
			o.Addr = mustAddr(t, `endpoint.e["k"]`)
			o.Facts.Deposed = &DeposedObject{AgentHandle: "endpoint.e[13]", CreateToken: "tok", Agent: "agent.compute"}
		}
		objects = append(objects, o)
	}
	from := mustAddr(t, "endpoint.old")
	written := 0
	for _, o := range objects {
		for _, c := range []Change{PutObject(o), MoveObject(from, o)} {
			want, wantErr := json.Marshal(c.toJSON())
			got, ok := appendObjectChange([]byte("x"), c)
			switch {
			case !ok && string(got) != "x":
				t.Errorf("%s %c: left to encoding/json, but wrote %q", o.Addr, c.Op, got)
			case ok && wantErr != nil:
				t.Errorf("%s %c: wrote what encoding/json refuses (%v): %s", o.Addr, c.Op, wantErr, got)
			case ok && string(got[1:]) != string(want):
				t.Errorf("%s %c:\n got %s\nwant %s", o.Addr, c.Op, got[1:], want)
			case ok:
				written++
			}
		}
	}
	if written < 16 {
		t.Errorf("only %d of %d records written without encoding/json", written, 2*len(objects))
	}
}
