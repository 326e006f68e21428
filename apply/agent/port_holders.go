package agent

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
	"github.com/rdmaform/rdmaform/rdmacm/binds"
)

// namingPortHolders adds to a listener's failed bind the listeners this
// agent holds that bind its address and port: the kernel says only
// EADDRINUSE (EADDRNOTAVAIL where a wildcard is involved), and the holder
// is often another configuration's, which the user cannot see from
// theirs. The detail goes before the errno, as the binding's own details
// do, so that clients show "rdma_create_ep: address already in use
// (EADDRINUSE): 10.77.0.1:7610 is held by listener.loop@a".
func (a *Agent) namingPortHolders(l *listener, err error) error {
	var op *rdmacm.OpError
	if !errors.As(err, &op) || !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
		return err
	}
	holders := a.portHolders(l)
	if len(holders) == 0 {
		if !errors.Is(err, syscall.EADDRINUSE) {
			return err
		}
		// No listener of this agent's: another program (rping -s, an
		// application, another user's agent) holds it, which the kernel's
		// resource tracking names.
		if programs := programHolders(l); len(programs) > 0 {
			return &rdmacm.OpError{Op: op.Op, Err: fmt.Errorf("%s (%s) is bound by another program, not by this agent: %s: %w",
				hostPort(l.spec.Address, l.spec.Port), l.cfg.portSpace, strings.Join(programs, ", "), op.Err)}
		}
		return &rdmacm.OpError{Op: op.Op, Err: fmt.Errorf("%s (%s) is bound by another program, not by this agent (\"rdma resource show cm_id\" names its process): %w",
			hostPort(l.spec.Address, l.spec.Port), l.cfg.portSpace, op.Err)}
	}
	return &rdmacm.OpError{Op: op.Op, Err: fmt.Errorf("%s is held by %s: %w", hostPort(l.spec.Address, l.spec.Port), strings.Join(holders, ", "), op.Err)}
}

// portHolders names the other listeners that bind l's port in its port
// space on an address that overlaps l's (binds.Overlap), each with
// its address when that differs from l's (a wildcard).
func (a *Agent) portHolders(l *listener) []string {
	var out []string
	for _, o := range a.reg.all() {
		other, ok := o.impl.(*listener)
		if !ok || other == l || other.spec.Port != l.spec.Port || other.cfg.portSpace != l.cfg.portSpace ||
			!binds.Overlap(l.spec.Address, other.spec.Address) || !other.bindsItsAddress() {
			continue
		}
		name := o.address
		if other.spec.Address != l.spec.Address {
			name += " (on " + hostPort(other.spec.Address, other.spec.Port) + ")"
		}
		out = append(out, name)
	}
	return out
}

// programHolders names the processes whose listening cm_ids bind l's
// port in its port space on an overlapping address, from the kernel's
// resource tracking: none when it cannot be read.
func programHolders(l *listener) []string {
	ls, err := kernelListeners()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range ls {
		ap, err := netip.ParseAddrPort(r.LocalAddr)
		if err != nil || uint32(ap.Port()) != l.spec.Port || r.PortSpace != l.cfg.portSpace.String() || !binds.Overlap(l.spec.Address, ap.Addr().Unmap().String()) {
			continue
		}
		out = append(out, r.Program())
	}
	return out
}

// bindsItsAddress: a listener binds its address (or is about to, while
// being created) unless its bind failed; one that failed after listening
// (its device went) keeps its id, and the port, until it is deleted. Its
// facts are recorded once it listens.
func (l *listener) bindsItsAddress() bool {
	l.obj.mu.Lock()
	defer l.obj.mu.Unlock()
	return l.obj.st.status != pb.Status_ERROR || l.obj.st.facts != nil
}

func hostPort(address string, port uint32) string {
	return net.JoinHostPort(address, strconv.FormatUint(uint64(port), 10))
}
