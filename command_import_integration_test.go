//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A state lost while the agent kept the objects: apply refuses to make
// them again and points at import; import adopts them one by one (the
// protection domain an endpoint uses first), refusing an object that
// differs from the configuration or an address already managed; then plan
// finds nothing to do and destroy removes everything from the kernel.
func TestImportAdoptsWhatALostStateLeft(t *testing.T) {
	src := loopbackConfig(t)
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 6 added"}, "apply", "-auto-approve", "-no-color")
	for _, f := range []string{"rdmaform.rdmastate", "rdmaform.rdmastate.backup"} {
		os.Remove(filepath.Join(e.dir, f))
	}
	e.expect(1, []string{"protection_domain.rxe already exists", `"rdmaform import" adopts it`}, "apply", "-auto-approve", "-no-color")

	e.expect(1, []string{"Error: Cannot import endpoint.client[0]", "refers to protection_domain.rxe, listener.loop, which the state does not hold: import them first"}, "import", "-no-color", "endpoint.client[0]")
	e.expect(0, []string{`protection_domain.rxe: Importing from ID "protection_domain.rxe"...`, "Import successful!"}, "import", "-no-color", "protection_domain.rxe")
	e.expect(0, []string{"Import successful!"}, "import", "-no-color", "listener.loop")

	e.write(strings.Replace(src, "size     = 64", "size     = 128", 1))
	e.expect(1, []string{"does not match the configuration of endpoint.client[0]: probe.size differ"}, "import", "-no-color", "endpoint.client[0]")
	e.write(src)
	for _, a := range []string{"endpoint.client[0]", "endpoint.client[1]", "endpoint.client[2]", "endpoint.client[3]"} {
		e.expect(0, []string{"Import successful!"}, "import", "-no-color", a)
	}
	e.expect(1, []string{"Error: Resource already managed by rdmaform"}, "import", "-no-color", "endpoint.client[0]")
	e.expect(1, []string{"Error: Configuration for import target does not exist"}, "import", "-no-color", "endpoint.client[9]")
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{"Destroy complete! Resources: 6 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7471"); n != 0 {
		t.Errorf("%d cm_ids on port 7471 after destroy", n)
	}
}
