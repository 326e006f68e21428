package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestApplyMonitorNeedsATerminal(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"apply", "-auto-approve", "-monitor"}, streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 1 || !strings.Contains(errb.String(), "-monitor needs a terminal") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
