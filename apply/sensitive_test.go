package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
)

// Apply records which attributes were sensitive, so that later plans and
// show keep hiding them; an attribute no longer sensitive is no longer
// recorded as such.
func TestApplyRecordsSensitiveAttributes(t *testing.T) {
	src := func(sensitive bool) string {
		return fmt.Sprintf(`
variable "secret" {
  type      = string
  default   = "tok-42"
  sensitive = %v
}

listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data = "peer=${var.secret}"
  }
}
`, sensitive)
	}
	e := newEnv(t)
	l := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Listener, Name: "l"}}
	if _, r := e.run(context.Background(), load(t, src(true)), planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	o := e.current().Object(l)
	if got := fmt.Sprint(o.SensitiveAttributes); got != "[[accept private_data]]" {
		t.Fatalf("recorded sensitive attributes %s, want [[accept private_data]]", got)
	}
	// The value changes: the update records the paths again.
	if _, r := e.run(context.Background(), load(t, strings.Replace(src(true), "tok-42", "tok-43", 1)), planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	if got := fmt.Sprint(e.current().Object(l).SensitiveAttributes); got != "[[accept private_data]]" {
		t.Fatalf("after a replacement, recorded %s", got)
	}
	if _, r := e.run(context.Background(), load(t, strings.Replace(src(false), "tok-42", "tok-44", 1)), planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	if got := e.current().Object(l).SensitiveAttributes; len(got) != 0 {
		t.Fatalf("an attribute no longer sensitive is still recorded as such: %v", got)
	}
}
