package planner

import (
	"strings"
	"testing"
)

const triggersBase = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_send_wr = 16
  }
  accept {
    echo = true
  }
}

endpoint "probe" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port
  reconnect {
    min_backoff = "100ms"
  }
  qp {}
  probe {
    interval = "1s"
  }
}

endpoint "by_block" {
  address = "10.77.0.1"
  port    = 7472
  lifecycle {
    replace_triggered_by = [endpoint.probe]
  }
}

endpoint "by_instance" {
  count   = 2
  address = "10.77.0.1"
  port    = 7473
  lifecycle {
    replace_triggered_by = [endpoint.probe[count.index]]
  }
}

endpoint "by_port" {
  address = "10.77.0.1"
  port    = 7474
  lifecycle {
    replace_triggered_by = [listener.l.port]
  }
}

endpoint "by_listener" {
  address = "10.77.0.1"
  port    = 7475
  lifecycle {
    replace_triggered_by = [listener.l]
  }
}
`

func TestReplaceTriggeredBy(t *testing.T) {
	st := applied(t, mustPlan(t, load(t, triggersBase), nil, Options{}))
	if p := mustPlan(t, load(t, triggersBase), st, Options{}); p.HasChanges() {
		t.Fatalf("nothing changed, yet:\n%s", actions(p))
	}

	// endpoint.probe[1]'s probe changes in place: the block's triggers and
	// by_instance[1]'s fire; by_instance[0]'s and the listener's do not.
	p := mustPlan(t, load(t, strings.Replace(triggersBase, `interval = "1s"`, `interval = "${count.index == 1 ? 2 : 1}s"`, 1)), st, Options{})
	want := map[string]string{
		"endpoint.probe[1]":       "update",
		"endpoint.by_block":       "delete-then-create (replace_by_triggers)",
		"endpoint.by_instance[1]": "delete-then-create (replace_by_triggers)",
		"endpoint.by_instance[0]": "no-op",
		"endpoint.by_port":        "no-op",
		"endpoint.by_listener":    "no-op",
	}
	checkActions(t, p, want)

	// A listener cap forces its replacement: by_listener fires; by_port
	// does not (the port is the same), and nor do the others.
	p = mustPlan(t, load(t, strings.Replace(triggersBase, "max_send_wr = 16", "max_send_wr = 32", 1)), st, Options{})
	checkActions(t, p, map[string]string{
		"listener.l":           "delete-then-create (replace_because_cannot_update)",
		"endpoint.by_listener": "delete-then-create (replace_by_triggers)",
		"endpoint.by_port":     "no-op",
		"endpoint.by_block":    "no-op",
	})

	// The port changes: by_port fires too.
	p = mustPlan(t, load(t, strings.Replace(triggersBase, "port    = 7471", "port    = 7481", 1)), st, Options{})
	checkActions(t, p, map[string]string{
		"endpoint.by_port":     "delete-then-create (replace_by_triggers)",
		"endpoint.by_listener": "delete-then-create (replace_by_triggers)",
	})
	if c := p.Change(mustAddr(t, "endpoint.by_port")); !strings.Contains(strings.Join(resourceStrings(c), " "), "listener.l") {
		t.Errorf("endpoint.by_port does not depend on listener.l: %v", c.Dependencies)
	}
}

func checkActions(t *testing.T, p *Plan, want map[string]string) {
	t.Helper()
	for addr, w := range want {
		c := p.Change(mustAddr(t, addr))
		got := "none"
		if c != nil {
			got = c.Action.String()
			if c.Reason != "" {
				got += " (" + string(c.Reason) + ")"
			}
		}
		if got != w {
			t.Errorf("%s: %s, want %s\n%s", addr, got, w, actions(p))
		}
	}
}

func resourceStrings(c *Change) []string {
	var out []string
	for _, d := range c.Dependencies {
		out = append(out, d.String())
	}
	return out
}
