//go:build integration

package multihost_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/rdmacm/rdmatest/vmfabric"
	"github.com/rdmaform/rdmaform/state/etcdtest"
)

const (
	agentPort = 7470 // every guest's agent
	roguePort = 7480 // compute's second agent, with another CA's certificate

	// heartbeatBound is status -watch's: the longest silence of a host
	// before it is unreachable. printSlack is the CLI's time to say it
	// on a busy host (its heartbeat ticks every 500 ms).
	heartbeatBound = 2 * time.Second
	printSlack     = time.Second
)

// host is one guest of the fabric with its agent.
type host struct {
	key  string // agent.storage["s1"], agent.compute
	name string // its certificate's DNS name, the tls server_name
	vm   *vmfabric.Host
	cert pki.Pair
	proc *vmfabric.Proc
}

// e2e is the test's fabric: the guests, the PKI, the CLI on the host.
type e2e struct {
	t        *testing.T
	ctx      context.Context
	tree     string
	bin      string
	pki      string
	ca       *pki.CA
	operator pki.Pair
	hosts    []*host // s1, s2, compute
	etcd     string
	times    []string
}

func (e *e2e) measured(what string, d time.Duration) {
	e.times = append(e.times, fmt.Sprintf("%-52s %6.1f s", what, d.Seconds()))
	e.t.Logf("measured: %s: %.1f s", what, d.Seconds())
}

// One configuration, three hosts: two storage servers with a listener
// each, a compute host with three endpoints to each, the CLI and the
// state (etcd) on the host, each agent reached over mutual TLS through a
// forwarded port. Apply, see the six links with probe round trips (in
// the agents and in the CLI's status -json, each end's QP the other's
// remote QP); freeze a storage host (status -watch says it is unreachable
// within the heartbeat's bound, and its links unknown) and thaw it; power
// it off (status -watch says so at once; plan names it and makes
// nothing), boot it with a fresh agent (plan makes its objects again,
// apply heals, status -json shows every link again), destroy (no cm_id
// left on any guest); and the TLS refusals and a remote agent's device
// check on the way.
func TestMultiHostFabric(t *testing.T) {
	if os.Getenv("RDMAFORM_IN_VM") == "1" {
		t.Fatal("this test boots its own VMs: run it on the host, not in scripts/vm-run")
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	e := &e2e{t: t, ctx: ctx, tree: treeRoot(t)}
	defer func() {
		e.measured("total", time.Since(start))
		t.Logf("figures:\n%s", strings.Join(e.times, "\n"))
	}()

	e.build()
	e.makePKI()
	e.etcd = etcdtest.Start(t)

	bootStart := time.Now()
	f := vmfabric.Boot(t, vmfabric.Spec{Hosts: 3, Forward: []int{agentPort, roguePort}})
	e.measured("boot of 3 guests", time.Since(bootStart))
	for i, key := range []string{`agent.storage["s1"]`, `agent.storage["s2"]`, "agent.compute"} {
		name := []string{"s1", "s2", "compute"}[i] + ".rdmaform.test"
		h := &host{key: key, name: name, vm: f.Host(i)}
		h.cert = e.ca.Server(t, strings.Split(name, ".")[0], pki.DNSNames(name))
		e.hosts = append(e.hosts, h)
	}
	e.startAgents(e.hosts...)
	s1, compute := e.hosts[0], e.hosts[2]

	dir := e.configDir("fabric", e.fabricConfig(e.backendBlock(), ""))
	if code, out, errs := e.cli(dir, "init", "-no-color"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}

	e.refusals()
	e.badListenerAddress()

	// Apply: 2 listeners and 6 endpoints across the hosts.
	t0 := time.Now()
	code, out, errs := e.cli(dir, "apply", "-auto-approve", "-no-color")
	e.measured("apply of 2 listeners + 6 endpoints", time.Since(t0))
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 8 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errs)
	}
	e.waitLinks("after apply", e.hosts[0], e.hosts[1])
	watch := e.startWatch(dir)
	e.statusLinks(dir, "after apply")

	// One storage host frozen, as behind a pulled cable: it sends
	// nothing, not even a reset, and only the heartbeat's bound notices.
	from := watch.next()
	t0 = time.Now()
	if err := s1.vm.Freeze(); err != nil {
		t.Fatal(err)
	}
	line := watch.hostDown(e, from, s1)
	frozenFor := line.at.Sub(t0)
	e.measured("frozen host seen unreachable by status -watch", frozenFor)
	t.Logf("status -watch on the frozen host: %s", line.text)
	if err := s1.vm.Thaw(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line.text, "(the heartbeat's bound)") {
		t.Errorf("status -watch saw the frozen host unreachable for another reason than the heartbeat's bound:\n%s", line.text)
	}
	// The heartbeat's bound, from the last word the host said (which
	// was before the freeze), and the CLI's time to print it.
	if limit := heartbeatBound + printSlack; frozenFor > limit {
		t.Errorf("status -watch said the frozen host was unreachable %v after the freeze, want at most %v (the heartbeat's bound, %v, and %v to print it)",
			frozenFor, limit, heartbeatBound, printSlack)
	}
	watch.waitLine(e, from, "status -watch to say "+s1.key+" answers again after the thaw", func(l string) bool {
		return strings.Contains(l, "  "+s1.key+"  answers again")
	})
	e.statusLinks(dir, "after the thaw")

	// One storage host loses power.
	from = watch.next()
	off := time.Now()
	if err := s1.vm.PowerOff(); err != nil {
		t.Fatal(err)
	}
	line = watch.hostDown(e, from, s1)
	// Its forwarded port's connection closes with its qemu: no heartbeat
	// needed, unlike a frozen host's.
	e.measured("powered-off host seen unreachable by status -watch", line.at.Sub(off))
	t.Logf("status -watch on the powered-off host: %s", line.text)
	e.waitFor("compute's endpoints to s1 to leave established", func() (bool, string) {
		objs, err := e.list(compute)
		if err != nil {
			return false, err.Error()
		}
		var still []string
		for _, o := range objs {
			if o.Kind == pb.Kind_ENDPOINT && strings.Contains(o.Address, `"s1-`) && o.Status == pb.Status_ESTABLISHED {
				still = append(still, o.Address)
			}
		}
		return len(still) == 0, fmt.Sprintf("still established: %v", still)
	})
	e.measured("endpoints to the powered-off host down (compute's agent)", time.Since(off))
	t0 = time.Now()
	_, err := client.DialRemote(ctx, e.remote(s1, e.operator))
	var re *client.RemoteError
	if !errors.As(err, &re) || re.Problem != client.Unreachable {
		t.Fatalf("the powered-off host's agent: %v, want it unreachable", err)
	}
	e.measured("the powered-off host's agent seen unreachable", time.Since(t0))

	for _, args := range [][]string{{"plan", "-no-color"}, {"plan", "-no-color", "-detailed-exitcode"}} {
		code, out, errs := e.cli(dir, args...)
		want := fmt.Sprintf("%s (%s) does not answer: no rdmaform agent answers at %s", s1.key, s1.vm.Forwarded(agentPort), s1.vm.Forwarded(agentPort))
		if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "nothing is planned") || strings.Contains(errs, "rpc error") {
			t.Errorf("%v with %s off: exit %d, want 1 and\n%s\n%s%s", args, s1.key, code, want, out, errs)
		}
	}

	// Booted again, with a fresh agent: its objects are to be made.
	t0 = time.Now()
	if err := s1.vm.Boot(ctx); err != nil {
		t.Fatal(err)
	}
	e.measured("boot of the powered-off guest", time.Since(t0))
	e.startAgents(s1)
	code, out, errs = e.cli(dir, "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, `# listener.blocks["s1"] will be created`) {
		t.Fatalf("plan after the host came back: exit %d, want 2 and its listener to be created\n%s%s", code, out, errs)
	}
	t.Logf("plan after the host came back says: %s", planLine(out))
	t0 = time.Now()
	code, out, errs = e.cli(dir, "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete!") {
		t.Fatalf("heal apply: exit %d\n%s%s", code, out, errs)
	}
	e.waitLinks("after the heal", e.hosts[0], e.hosts[1])
	e.statusLinks(dir, "after the heal")
	e.measured("heal apply, and every link established again", time.Since(t0))
	watch.waitLine(e, from, "status -watch to say "+s1.key+" answers again after the heal", func(l string) bool {
		return strings.Contains(l, "  "+s1.key+"  answers again")
	})
	watch.stop(e)
	code, out, errs = e.cli(dir, "plan", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Errorf("plan after the heal: exit %d, want 0 (no changes)\n%s%s", code, out, errs)
	}

	// Before the destroy, the kernels show the agents' cm_ids: so their
	// absence after it means something.
	for _, h := range e.hosts {
		if n := e.agentCMIDs(h); n == 0 {
			t.Errorf("%s (%s) shows no cm_id of rdmaform's while its objects are there", h.vm.Name(), h.key)
		}
	}

	// Destroy: nothing of rdmaform's left in any guest's kernel.
	t0 = time.Now()
	code, out, errs = e.cli(dir, "destroy", "-auto-approve", "-no-color")
	e.measured("destroy", time.Since(t0))
	if code != 0 || !strings.Contains(out, "Destroy complete!") {
		t.Fatalf("destroy: exit %d\n%s%s", code, out, errs)
	}
	for _, h := range e.hosts {
		if n := e.agentCMIDs(h); n != 0 {
			t.Errorf("%s (%s) keeps %d cm_ids of rdmaform's after destroy", h.vm.Name(), h.key, n)
		}
	}
}

// agentCMIDs counts the cm_ids the guest's kernel shows for rdmaform
// (its agent), logging them.
func (e *e2e) agentCMIDs(h *host) int {
	e.t.Helper()
	out, code, err := h.vm.Run(e.ctx, "rdma", "resource", "show", "cm_id")
	if err != nil || code != 0 {
		e.t.Fatalf("rdma resource show cm_id on %s: exit %d, %v\n%s", h.vm.Name(), code, err, out)
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "comm rdmaform") {
			n++
			e.t.Logf("%s: %s", h.vm.Name(), strings.TrimSpace(l))
		}
	}
	return n
}

// build puts the rdmaform binary into the tree, which the guests share.
func (e *e2e) build() {
	t0 := time.Now()
	e.bin = filepath.Join(e.tree, ".cache", "multihost", "rdmaform")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	cmd := exec.Command(goBin, "build", "-o", e.bin, ".")
	cmd.Dir = e.tree
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("go build of rdmaform into %s: %v\n%s", e.bin, err, out)
	}
	e.measured("go build of rdmaform", time.Since(t0))
}

// makePKI makes the CA, the operator's certificate and, in another
// directory, a stranger CA: in the tree, the guests' only view of the
// host.
func (e *e2e) makePKI() {
	if err := os.MkdirAll(filepath.Join(e.tree, ".cache", "multihost"), 0o755); err != nil {
		e.t.Fatal(err)
	}
	dir, err := os.MkdirTemp(filepath.Join(e.tree, ".cache", "multihost"), "pki")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.RemoveAll(dir) })
	e.pki = dir
	e.ca = pki.NewCA(e.t, dir, "ca")
	e.operator = e.ca.Client(e.t, "operator")
}

// startAgents starts the hosts' agents, all at once, and waits until each
// answers through its forwarded port.
func (e *e2e) startAgents(hosts ...*host) {
	e.t.Helper()
	t0 := time.Now()
	for _, h := range hosts {
		p, err := h.vm.Start(e.bin, "agent", "-socket=/run/rdmaform-e2e/agent.sock",
			fmt.Sprintf("-listen=0.0.0.0:%d", agentPort),
			"-tls-cert="+h.cert.CertFile, "-tls-key="+h.cert.KeyFile, "-tls-client-ca="+e.ca.CertFile)
		if err != nil {
			e.t.Fatal(err)
		}
		h.proc = p
	}
	for _, h := range hosts {
		e.waitFor(h.key+"'s agent through "+h.vm.Forwarded(agentPort), func() (bool, string) {
			c, err := client.DialRemote(e.ctx, e.remote(h, e.operator))
			if err != nil {
				return false, fmt.Sprintf("%v; agent output:\n%s", err, h.proc.Output())
			}
			c.Close()
			return true, ""
		})
	}
	e.measured(fmt.Sprintf("start of %d agents until each answers", len(hosts)), time.Since(t0))
}

func (e *e2e) remote(h *host, as pki.Pair) client.Remote {
	return client.Remote{Address: h.vm.Forwarded(agentPort), CAFile: e.ca.CertFile, CertFile: as.CertFile, KeyFile: as.KeyFile, ServerName: h.name}
}

// list reads what the host's agent holds, in full.
func (e *e2e) list(h *host) ([]*pb.Object, error) {
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	c, err := client.DialRemote(ctx, e.remote(h, e.operator))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r, err := c.List(ctx, &pb.ListRequest{Full: true})
	if err != nil {
		return nil, err
	}
	return r.Objects, nil
}

// waitLinks waits until compute's six endpoints are established with
// probe round trips and each storage host's listener listens with the
// three connections of its endpoints established (those whose remote QP
// is one of theirs). Another connection it still holds established is
// logged: a passive side whose peer reconnected while the DREQ was lost
// (a busy wire) keeps its end until it sends on it.
func (e *e2e) waitLinks(when string, storage ...*host) {
	e.t.Helper()
	compute := e.hosts[2]
	qps := map[uint32]bool{} // compute's endpoints' QPs
	e.waitFor("six links established with probe round trips "+when, func() (bool, string) {
		objs, err := e.list(compute)
		if err != nil {
			return false, err.Error()
		}
		clear(qps)
		var ok []string
		var bad []string
		for _, o := range objs {
			if o.Kind != pb.Kind_ENDPOINT {
				continue
			}
			switch {
			case o.Status != pb.Status_ESTABLISHED:
				bad = append(bad, fmt.Sprintf("%s %s", o.Address, o.Status))
			case o.Probe == nil || o.Probe.Received == 0 || o.Probe.Last <= 0:
				bad = append(bad, o.Address+" without a probe round trip")
			default:
				ok = append(ok, fmt.Sprintf("%s %v", o.Address, time.Duration(o.Probe.Last)))
				qps[o.GetFacts().GetQpNum()] = true
			}
		}
		return len(ok) == 6 && len(bad) == 0, fmt.Sprintf("established: %v; not: %v", ok, bad)
	})
	for _, s := range storage {
		var others []string
		e.waitFor(s.key+"'s listener with the three connections of compute's endpoints "+when, func() (bool, string) {
			objs, err := e.list(s)
			if err != nil {
				return false, err.Error()
			}
			var listening bool
			conns := 0
			others = nil
			for _, o := range objs {
				switch {
				case o.Kind == pb.Kind_LISTENER:
					listening = o.Status == pb.Status_LISTENING
				case o.Kind == pb.Kind_CONNECTION && o.Status == pb.Status_ESTABLISHED && qps[o.GetFacts().GetRemoteQpNum()]:
					conns++
				case o.Kind == pb.Kind_CONNECTION && o.Status == pb.Status_ESTABLISHED:
					others = append(others, fmt.Sprintf("%s (remote QP %d)", o.Address, o.GetFacts().GetRemoteQpNum()))
				}
			}
			return listening && conns == 3, fmt.Sprintf("listening %v, %d connections of compute's endpoints (QPs %v) established: %v", listening, conns, qps, objs)
		})
		if len(others) > 0 {
			e.t.Logf("%s %s also holds established connections of no current endpoint: %v", s.key, when, others)
		}
	}
}

// refusals: a client certificate of another CA is refused by the agent,
// and an agent whose certificate another CA signed is refused by the CLI.
func (e *e2e) refusals() {
	t := e.t
	other := pki.NewCA(t, filepath.Join(e.pki), "other")
	stranger := other.Client(t, "stranger")
	compute := e.hosts[2]

	dir := e.configDir("stranger", e.computeOnlyConfig(compute.vm.Forwarded(agentPort), compute.name, stranger))
	code, out, errs := e.cli(dir, "plan", "-no-color")
	want := fmt.Sprintf("agent.compute (%s) does not answer: the agent at %s refused our certificate (%s)", compute.vm.Forwarded(agentPort), compute.vm.Forwarded(agentPort), stranger.CertFile)
	if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "rpc error") {
		t.Errorf("plan with another CA's client certificate: exit %d, want 1 and\n%s\n%s%s", code, want, out, errs)
	}

	rogue := other.Server(t, "rogue", pki.DNSNames(compute.name))
	p, err := compute.vm.Start(e.bin, "agent", "-socket=/run/rdmaform-rogue/agent.sock",
		fmt.Sprintf("-listen=0.0.0.0:%d", roguePort),
		"-tls-cert="+rogue.CertFile, "-tls-key="+rogue.KeyFile, "-tls-client-ca="+e.ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(e.ctx)
	addr := compute.vm.Forwarded(roguePort)
	dir = e.configDir("rogue", e.computeOnlyConfig(addr, compute.name, e.operator))
	want = fmt.Sprintf("agent.compute (%s) does not answer: the agent at %s presented a certificate (CN=rogue) not signed by the CA in %s", addr, addr, e.ca.CertFile)
	// Until the rogue agent listens, the forwarded port refuses: wait for
	// the certificate's refusal itself.
	e.waitFor("the CLI's refusal of an agent of another CA", func() (bool, string) {
		code, out, errs := e.cli(dir, "plan", "-no-color")
		return code == 1 && strings.Contains(errs, want), fmt.Sprintf("exit %d, want 1 and\n%s\n%s%s\nrogue agent: %s", code, want, out, errs, p.Output())
	})
}

// badListenerAddress: a listener on s1 at s2's address is refused by the
// plan, which asks s1's agent and names it.
func (e *e2e) badListenerAddress() {
	s1 := e.hosts[0]
	extra := `
listener "bad" {
  agent   = agent.storage["s1"]
  address = "10.77.1.2"
  port    = 7479
}
`
	dir := e.configDir("bad-address", e.fabricConfig("", extra))
	code, out, errs := e.cli(dir, "plan", "-no-color")
	want := fmt.Sprintf(`On the host of agent.storage["s1"] (%s): listener.bad: 10.77.1.2 is not an address of this host`, s1.vm.Forwarded(agentPort))
	if code != 1 || !strings.Contains(errs, "Address not on this host") || !strings.Contains(errs, want) {
		e.t.Errorf("plan of a listener on s1 at s2's address: exit %d, want 1 and\n%s\n%s%s", code, want, out, errs)
	}
}

func (e *e2e) backendBlock() string {
	return fmt.Sprintf(`
rdmaform {
  backend "etcd" {
    endpoints = [%q]
    prefix    = "rdmaform-e2e"
  }
}
`, e.etcd)
}

func (e *e2e) tlsBlock(serverName string, as pki.Pair) string {
	return fmt.Sprintf(`  tls {
    ca_file     = %q
    cert_file   = %q
    key_file    = %q
    server_name = %q
  }`, e.ca.CertFile, as.CertFile, as.KeyFile, serverName)
}

// fabricConfig is the fabric: a listener on each storage host (probes
// echoed), three endpoints from compute to each (probed, reconnecting).
func (e *e2e) fabricConfig(backend, extra string) string {
	s1, s2, c := e.hosts[0], e.hosts[1], e.hosts[2]
	return backend + fmt.Sprintf(`
locals {
  storage   = { s1 = "10.77.1.1", s2 = "10.77.1.2" }
  forwarded = { s1 = %q, s2 = %q }
  names     = { s1 = %q, s2 = %q }
  links     = { "s1-0" = "s1", "s1-1" = "s1", "s1-2" = "s1", "s2-0" = "s2", "s2-1" = "s2", "s2-2" = "s2" }
}

agent "storage" {
  for_each = local.storage
  address  = local.forwarded[each.key]
  tls {
    ca_file     = %q
    cert_file   = %q
    key_file    = %q
    server_name = local.names[each.key]
  }
}

agent "compute" {
  address = %q
%s
}

listener "blocks" {
  for_each = local.storage
  agent    = agent.storage[each.key]
  address  = each.value
  port     = 7471

  qp {}
  accept {
    max_connections = 8
    echo            = true
  }
}

endpoint "blocks" {
  for_each = local.links
  agent    = agent.compute
  address  = listener.blocks[each.value].address
  port     = listener.blocks[each.value].port

  qp {}
  reconnect { max_backoff = "2s" }
  probe { interval = "500ms" }
}
%s`, s1.vm.Forwarded(agentPort), s2.vm.Forwarded(agentPort), s1.name, s2.name,
		e.ca.CertFile, e.operator.CertFile, e.operator.KeyFile,
		c.vm.Forwarded(agentPort), e.tlsBlock(c.name, e.operator), extra)
}

// computeOnlyConfig is one endpoint on an agent at address, reached with
// the given client certificate: for the refusals (local state).
func (e *e2e) computeOnlyConfig(address, serverName string, as pki.Pair) string {
	return fmt.Sprintf(`
agent "compute" {
  address = %q
%s
}

endpoint "e" {
  agent   = agent.compute
  address = "10.77.1.1"
  port    = 7471
}
`, address, e.tlsBlock(serverName, as))
}

// configDir writes a configuration into a directory of its own.
func (e *e2e) configDir(name, cfg string) string {
	dir := filepath.Join(e.t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// cli runs rdmaform on the host in dir, bounded.
func (e *e2e) cli(dir string, args ...string) (int, string, string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		e.t.Fatalf("rdmaform %v: %v\n%s%s", args, err, out.String(), errb.String())
	}
	return code, out.String(), errb.String()
}

// waitFor polls cond until it holds, failing the test after two minutes
// with cond's last word.
func (e *e2e) waitFor(what string, cond func() (bool, string)) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			e.t.Fatalf("waiting for %s: %v; last: %s", what, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func planLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Plan: ") {
			return l
		}
	}
	return "(no Plan: line)"
}

// treeRoot is the working tree above the package directory.
func treeRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(wd, "/command/multihost")
}
