package planner

import (
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
)

// A plan records the time its configuration's plantimestamp() gave, as
// Terraform 1.11's plan does, so that applying the saved plan evaluates
// the configuration with the same time.
func TestPlanRecordsPlanTimestamp(t *testing.T) {
	l := config.NewLoader()
	l.PlanTimestamp = time.Date(2018, 5, 13, 7, 44, 12, 0, time.UTC)
	cfg, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`output "at" {
  value = plantimestamp()
}
`)}, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := mustPlan(t, cfg, nil, Options{})
	if !p.Created.Equal(l.PlanTimestamp) || p.Timestamp() != "2018-05-13T07:44:12Z" {
		t.Errorf("the plan records %v (%s), want plantimestamp()'s 2018-05-13T07:44:12Z", p.Created, p.Timestamp())
	}
}
