package state

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func mustAddr(t testing.TB, s string) addrs.Instance {
	a, err := addrs.ParseInstance(s)
	if err != nil {
		panic(err)
	}
	return a
}

func testObject(t testing.TB, addr string, n int) *Object {
	a := mustAddr(t, addr)
	return &Object{
		Addr:          a,
		SchemaVersion: 1,
		Attributes:    json.RawMessage(fmt.Sprintf(`{"device":"mlx5_0","n":%d}`, n)),
		Facts: Facts{
			AgentHandle: fmt.Sprintf("h-%d", n), Device: "mlx5_0", PortNum: 1, QPNum: uint32(n), QPType: "RC",
			LocalAddr: "10.0.0.1", LocalPort: 4791, RemoteAddr: "10.0.0.2", RemotePort: 4791,
			Status: "connected", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		},
	}
}

// attrN returns the "n" attribute of o.
func attrN(t testing.TB, o *Object) int {
	t.Helper()
	var v struct{ N int }
	if err := json.Unmarshal(o.Attributes, &v); err != nil {
		t.Fatal(err)
	}
	return v.N
}
