package agent

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm/rdmanl"
)

// KernelCheckInterval is how often a running agent compares what it holds
// with the kernel's RDMA resource tracking (docs/observability.md).
const KernelCheckInterval = 30 * time.Second

// kernelConfirmAfter is how long a discrepancy must last before it is
// reported: the kernel and the agent do not see a change at the same
// instant (a peer's disconnect moves the kernel's QP to ERR a moment
// before the agent reads the event; an id is destroyed a moment after its
// object is removed), so a discrepancy counts only once two checks this
// far apart both found it, on an object whose status did not change.
const kernelConfirmAfter = 5 * time.Second

// kernelView is the agent's comparison with the kernel: the last result,
// and the discrepancies seen once and waiting to be confirmed.
type kernelView struct {
	run sync.Mutex // one comparison at a time
	// read lists the kernel's resources of this process; tests replace it.
	read         func() (kernelResources, error)
	confirmAfter time.Duration

	mu       sync.Mutex
	last     *pb.KernelView
	pending  map[string]pendingVerdict // by object address
	suspects map[resourceKey]*pb.KernelResource
	leaks    map[resourceKey]bool // reported
	readErr  string               // the last read's error, logged once
}

type pendingVerdict struct {
	verdict
	objStatus pb.Status
	since     time.Time
}

type resourceKey struct {
	kind   string
	device string
	number uint32
}

func newKernelView() *kernelView {
	return &kernelView{read: readOwnResources, confirmAfter: kernelConfirmAfter,
		pending: map[string]pendingVerdict{}, suspects: map[resourceKey]*pb.KernelResource{}, leaks: map[resourceKey]bool{}}
}

// watchKernel compares with the kernel about every interval until ctx
// ends, each time at a quiet moment (kernelQuiet).
func (a *Agent) watchKernel(ctx context.Context, interval time.Duration) {
	q := kernelQuiet{changes: a.statusChanges.Load, after: time.After, now: time.Now,
		quiet: min(time.Second, interval/4), limit: interval}
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !q.wait(ctx) {
			return
		}
		a.CheckKernel()
		t.Reset(interval) // from the check's end: a wait does not bunch two checks
	}
}

// KernelView is the last comparison with the kernel, nil before the first.
func (a *Agent) KernelView() *pb.KernelView {
	a.kernel.mu.Lock()
	defer a.kernel.mu.Unlock()
	return a.kernel.last
}

// CheckKernel compares, now, every object with the kernel's resources of
// this process: settled objects get the kernel's verdict, discrepancies
// lasting kernelConfirmAfter become events and metrics, and resources no
// object accounts for become leaks.
func (a *Agent) CheckKernel() *pb.KernelView {
	kv := a.kernel
	kv.run.Lock()
	defer kv.run.Unlock()
	start := time.Now()
	before := a.heldObjects()
	res, err := kv.read()
	if err != nil {
		return kv.failed(a, err)
	}
	// An object that changed while the kernel was read is judged next
	// time: its verdict would compare two different moments.
	unchanged := map[string]bool{}
	was := make(map[string]heldObject, len(before))
	for _, o := range before {
		was[o.address] = o
	}
	for _, o := range a.heldObjects() {
		b, ok := was[o.address]
		unchanged[o.address] = ok && b.status == o.status && b.qpNum == o.qpNum && b.local == o.local && b.remote == o.remote
	}
	verdicts, rest := compareWithKernel(before, res)
	now := time.Now()
	view := &pb.KernelView{CheckedAt: now.UnixNano()}
	for _, o := range a.reg.all() {
		if o.kind == pb.Kind_PROTECTION_DOMAIN {
			continue
		}
		v, judged := verdicts[o.address]
		if !judged || !unchanged[o.address] {
			kv.clearPending(o.address)
			a.setKernel(o, nil)
			continue
		}
		switch reported := kv.settle(o, v, now); {
		case reported == nil:
		case reported.Status == pb.KernelStatus_KERNEL_CONFIRMED:
			view.Confirmed++
			a.setKernel(o, reported)
		default:
			view.Discrepancies++
			a.setKernel(o, reported)
		}
	}
	view.Leaks = kv.trackLeaks(a, rest, now)
	view.Discrepancies += uint32(len(view.Leaks))
	view.Took = int64(time.Since(start))
	kv.mu.Lock()
	if kv.readErr != "" {
		a.log.Info("kernel: RDMA netlink answers again")
		kv.readErr = ""
	}
	kv.last = view
	kv.mu.Unlock()
	return view
}

// failed keeps the last comparison, with the reason the kernel could not
// be read this time, logged once.
func (kv *kernelView) failed(a *Agent, err error) *pb.KernelView {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	view := &pb.KernelView{}
	if kv.last != nil {
		view = proto.CloneOf(kv.last)
	}
	view.Error = "reading the kernel's RDMA resources: " + err.Error()
	if kv.readErr != view.Error {
		a.log.Warn("kernel: cannot compare with the kernel's resource tracking", "err", view.Error)
		kv.readErr = view.Error
	}
	kv.last = view
	return view
}

func (kv *kernelView) clearPending(addr string) {
	kv.mu.Lock()
	delete(kv.pending, addr)
	kv.mu.Unlock()
}

// settle turns a verdict into what the object shows: a confirmation at
// once, a discrepancy once it lasted confirmAfter with the object's
// status unchanged. nil: nothing to show yet.
func (kv *kernelView) settle(o *object, v verdict, now time.Time) *pb.KernelCheck {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if v.status == pb.KernelStatus_KERNEL_CONFIRMED {
		delete(kv.pending, o.address)
		return &pb.KernelCheck{Status: v.status, Detail: v.detail}
	}
	st := o.status()
	p, ok := kv.pending[o.address]
	if !ok || p.verdict != v || p.objStatus != st {
		kv.pending[o.address] = pendingVerdict{verdict: v, objStatus: st, since: now}
		return nil
	}
	if now.Sub(p.since) < kv.confirmAfter {
		return nil
	}
	return &pb.KernelCheck{Status: v.status, Detail: v.detail}
}

// setKernel records the kernel's verdict on o (nil: unchecked) when it
// changed; a discrepancy, and the end of one, is an event of the object's
// and a discrepancy a count of the metric.
func (a *Agent) setKernel(o *object, k *pb.KernelCheck) {
	o.mu.Lock()
	old := o.st.kernel
	o.mu.Unlock()
	if proto.Equal(old, k) {
		return
	}
	discrepancy := k != nil && k.Status != pb.KernelStatus_KERNEL_CONFIRMED
	wasDiscrepancy := old != nil && old.Status != pb.KernelStatus_KERNEL_CONFIRMED
	o.change(func(s *state) {
		s.kernel = k
		switch {
		case discrepancy:
			s.record(s.status, "kernel "+kernelWord(k.Status), k.Detail)
		case wasDiscrepancy && k != nil:
			s.record(s.status, "kernel confirmed", k.Detail)
		}
	})
	if discrepancy {
		a.metrics.kernelDiscrepancy(kernelWord(k.Status))
		a.log.Warn("kernel: discrepancy", "object", o.address, "kind", KindWord(o.kind), "kernel", kernelWord(k.Status), "detail", k.Detail)
	}
}

// trackLeaks turns the resources no object accounts for into suspects,
// and suspects that lasted confirmAfter into leaks, reported once each;
// it returns the leaks.
func (kv *kernelView) trackLeaks(a *Agent, rest kernelResources, now time.Time) []*pb.KernelResource {
	seen := map[resourceKey]*pb.KernelResource{}
	for _, id := range rest.ids {
		r := cmIDResource(id)
		seen[resourceKey{"cm_id", id.Device, id.Number}] = r
	}
	for _, q := range rest.qps {
		seen[resourceKey{"qp", q.Device, q.Number}] = qpResource(q)
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	var leaks []*pb.KernelResource
	for k, r := range seen {
		s, ok := kv.suspects[k]
		if !ok {
			r.Since = now.UnixNano()
			kv.suspects[k] = r
			continue
		}
		if now.Sub(time.Unix(0, s.Since)) < kv.confirmAfter {
			continue
		}
		r.Since = s.Since
		leaks = append(leaks, r)
		if !kv.leaks[k] {
			kv.leaks[k] = true
			a.metrics.kernelDiscrepancy("leak")
			a.log.Warn("kernel: a resource of this process that the agent does not hold (a leak)", "kernel", describeResource(r))
		}
	}
	for k := range kv.suspects {
		if seen[k] == nil {
			delete(kv.suspects, k)
			if kv.leaks[k] {
				delete(kv.leaks, k)
				a.log.Info("kernel: a leaked resource is gone", "kind", k.kind, "device", k.device, "number", k.number)
			}
		}
	}
	sortResources(leaks)
	return leaks
}

// heldObjects is what the agent believes about each listener, endpoint
// and connection.
func (a *Agent) heldObjects() []heldObject {
	objs := a.reg.all()
	out := make([]heldObject, 0, len(objs))
	for _, o := range objs {
		h := heldObject{address: o.address, kind: o.kind}
		switch impl := o.impl.(type) {
		case *listener:
			h.portSpace, h.listenPort = rdmanl.PortSpace(impl.cfg.portSpace), impl.spec.Port
		case *endpoint:
			impl.mu.Lock()
			spec := impl.spec
			impl.mu.Unlock()
			h.portSpace, h.destPort = rdmanl.PortSpace(impl.cfg.portSpace), spec.Port
			if ip, err := netip.ParseAddr(spec.Address); err == nil {
				h.dest = netip.AddrPortFrom(ip, uint16(spec.Port))
			}
		case *connection:
			h.portSpace = rdmanl.PortSpace(impl.listener.cfg.portSpace)
		default:
			continue
		}
		o.mu.Lock()
		h.status = o.st.status
		if f := o.st.facts; f != nil {
			h.local, _ = netip.ParseAddrPort(f.LocalAddr)
			h.remote, _ = netip.ParseAddrPort(f.RemoteAddr)
			h.device, h.qpNum, h.qpType = f.Device, f.QpNum, f.QpType
		}
		o.mu.Unlock()
		out = append(out, h)
	}
	return out
}

// readOwnResources lists the kernel's cm_ids and QPs of this process (a
// resource names the thread that made it).
func readOwnResources() (kernelResources, error) {
	c, err := rdmanl.Dial()
	if err != nil {
		return kernelResources{}, err
	}
	defer c.Close()
	ids, err := c.CMIDs()
	if err != nil {
		return kernelResources{}, err
	}
	qps, err := c.QPs()
	if err != nil {
		return kernelResources{}, err
	}
	own := ownerOf(uint32(os.Getpid()))
	var out kernelResources
	for _, id := range ids {
		if own(id.Owner) {
			out.ids = append(out.ids, id)
		}
	}
	for _, q := range qps {
		if own(q.Owner) {
			out.qps = append(out.qps, q)
		}
	}
	return out, nil
}

// ownerOf says whether a resource's owner is a thread of process pid.
func ownerOf(pid uint32) func(rdmanl.Owner) bool {
	cache := map[uint32]bool{}
	return func(o rdmanl.Owner) bool {
		if o.PID == 0 {
			return false // the kernel's own
		}
		v, ok := cache[o.PID]
		if !ok {
			tgid, _, found := rdmanl.ProcessOf(o.PID)
			v = found && tgid == pid
			cache[o.PID] = v
		}
		return v
	}
}

func cmIDResource(id rdmanl.CMID) *pb.KernelResource {
	r := &pb.KernelResource{Kind: "cm_id", Device: id.Device, Port: id.Port, Number: id.Number, State: id.State.String(),
		PortSpace: id.PortSpace.String(), Pid: id.PID, Command: id.KernName}
	if id.Src.IsValid() {
		r.LocalAddr = id.Src.String()
	}
	if id.Dst.IsValid() && id.Dst.Port() != 0 {
		r.RemoteAddr = id.Dst.String()
	}
	if id.HasQP {
		r.QpNum, r.QpType = id.QPNum, strings.ToLower(id.QPType.String())
	}
	nameProcess(r)
	return r
}

func qpResource(q rdmanl.QP) *pb.KernelResource {
	r := &pb.KernelResource{Kind: "qp", Device: q.Device, Port: q.Port, Number: q.Number, State: q.State.String(),
		QpNum: q.Number, QpType: strings.ToLower(q.Type.String()), Pid: q.PID, Command: q.KernName}
	nameProcess(r)
	return r
}

// nameProcess replaces a resource's thread by its process and command.
func nameProcess(r *pb.KernelResource) {
	if r.Pid == 0 {
		return
	}
	if tgid, comm, ok := rdmanl.ProcessOf(r.Pid); ok {
		r.Pid, r.Command = tgid, comm
	}
}

// describeResource is one line about a kernel resource, as "rdma
// resource show" would put it.
func describeResource(r *pb.KernelResource) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d on %s/%d", r.Kind, r.Number, r.Device, r.Port)
	if r.LocalAddr != "" {
		fmt.Fprintf(&b, " %s", r.LocalAddr)
	}
	if r.RemoteAddr != "" {
		fmt.Fprintf(&b, " to %s", r.RemoteAddr)
	}
	if r.PortSpace != "" {
		fmt.Fprintf(&b, " (%s)", r.PortSpace)
	}
	fmt.Fprintf(&b, ", %s", r.State)
	if r.Kind == "cm_id" && r.QpNum != 0 {
		fmt.Fprintf(&b, ", QP %d", r.QpNum)
	}
	if r.Pid != 0 {
		fmt.Fprintf(&b, ", pid %d (%s)", r.Pid, r.Command)
	} else if r.Command != "" {
		fmt.Fprintf(&b, ", the kernel's (%s)", r.Command)
	}
	return b.String()
}

// kernelWord is a KernelStatus as status and the monitor show it.
func kernelWord(s pb.KernelStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "KERNEL_"))
}

func sortResources(rs []*pb.KernelResource) {
	slices.SortFunc(rs, func(a, b *pb.KernelResource) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Device, b.Device), cmp.Compare(a.Number, b.Number))
	})
}
