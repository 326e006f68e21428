package planner

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A plan records when it was made (plan JSON's timestamp), and its saved
// plan keeps it; a plan file saved before plans recorded it still loads,
// without one.
func TestPlanTimestamp(t *testing.T) {
	before := time.Now().UTC().Truncate(time.Second)
	p := mustPlan(t, load(t, loopback), nil, Options{})
	if p.Created.Before(before) || p.Created.After(time.Now()) || p.Created.Location() != time.UTC {
		t.Fatalf("Created = %v, want now in UTC", p.Created)
	}
	if ts, err := time.Parse(time.RFC3339, p.Timestamp()); err != nil || !ts.Equal(p.Created) || !strings.HasSuffix(p.Timestamp(), "Z") {
		t.Fatalf("Timestamp = %q (%v)", p.Timestamp(), err)
	}
	var b bytes.Buffer
	if err := WritePlanFile(&b, &SavedPlan{Plan: p}); err != nil {
		t.Fatal(err)
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil || !sp.Plan.Created.Equal(p.Created) {
		t.Fatalf("saved plan's Created = %v (%v), want %v", sp.Plan.Created, err, p.Created)
	}
	old := strings.Replace(b.String(), `"created_at"`, `"unknown_key"`, 1)
	if sp, err := ReadPlanFile([]byte(old)); err != nil || !sp.Plan.Created.IsZero() || sp.Plan.Timestamp() != "" {
		t.Fatalf("a plan file without created_at: %v, %v", sp, err)
	}
}
