//go:build integration

package command

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
)

// Real RDMA connections between two agents on the Soft-RoCE testbed: a
// listener on the local agent, endpoints on an agent reached over mutual
// TLS. status matches each endpoint with the connection the listener
// accepted from the facts the agents report (addresses and ports), and
// shows each link once, established, with its probe round trip.
func TestStatusMatchesRealLinksAcrossAgents(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	if addr == "" {
		t.Fatal("RDMAFORM_TEST_ADDR is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	p := newFabricPKI(t)
	server := p.ca.Server(t, "far", pki.IPs("127.0.0.1"))
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: filepath.Join(t.TempDir(), "far", "agent.sock"), Version: "test", Stderr: io.Discard,
			TLS:   agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: p.ca.CertFile},
			Ready: func(info *pb.InfoResponse) { ready <- info }})
	}()
	var far *pb.InfoResponse
	select {
	case far = <-ready:
	case err := <-done:
		t.Fatalf("the remote agent: %v", err)
	}
	t.Cleanup(func() { cancel(); <-done })

	e := newE2E(t, fmt.Sprintf(`
agent "far" {
  address = %q
  tls {
    ca_file   = %q
    cert_file = %q
    key_file  = %q
  }
}

listener "l" {
  address = %q
  port    = 7593
  qp {}
  accept {
    echo = true
  }
}

endpoint "e" {
  count   = 2
  agent   = agent.far
  address = listener.l.address
  port    = listener.l.port
  qp {}
  probe {
    interval = "200ms"
    size     = 64
  }
}
`, far.Listen, p.ca.CertFile, p.user.CertFile, p.user.KeyFile, addr))
	e.expect(0, []string{"Apply complete! Resources: 3 added"}, "apply", "-auto-approve", "-no-color")
	t.Cleanup(func() { e.rdmaform("destroy", "-auto-approve", "-no-color") })

	// Each endpoint's first probe answered: its round trip is there.
	var doc struct {
		Links []struct {
			Status   string
			RTTNs    int64 `json:"rttNs"`
			Endpoint struct{ Host, Address, Local, Remote string }
			Accepted *struct{ Host, Address, Local, Remote string }
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, errs := e.rdmaform("status", "-json")
		if code != 0 {
			t.Fatalf("status -json: exit %d\n%s%s", code, out, errs)
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("status -json: %v\n%s", err, out)
		}
		probed := len(doc.Links) == 2
		for _, l := range doc.Links {
			probed = probed && l.RTTNs > 0
		}
		if probed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no round trip on both links after 60s:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	seen := map[string]bool{}
	for _, l := range doc.Links {
		a := l.Accepted
		if l.Status != "established" || l.Endpoint.Host != "agent.far" || a == nil || a.Host != "local" ||
			!strings.HasPrefix(a.Address, "listener.l/conn/") || a.Local != l.Endpoint.Remote || a.Remote != l.Endpoint.Local || seen[a.Address] {
			t.Errorf("link: %+v (accepted %+v)", l, a)
		}
		if a != nil {
			seen[a.Address] = true
		}
	}
	code, out, errs := e.rdmaform("status", "-no-color")
	link := regexp.MustCompile(`endpoint\.e\[\d\] \(agent\.far\)  ⇄ listener\.l conn/\d+ \(local\)\s+established  rtt \d`)
	if code != 0 || len(link.FindAllString(out, -1)) != 2 {
		t.Errorf("status: exit %d, want two established links with round trips:\n%s%s", code, out, errs)
	}
}
