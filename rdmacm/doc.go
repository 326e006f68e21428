// Package rdmacm is rdmaform's binding of librdmacm and the few libibverbs
// calls it needs. Every cgo call of the project lives here.
//
// The binding is asynchronous by design. CreateEP creates an id with
// rdma_create_ep, which resolves the address and route synchronously
// (bounded by librdmacm's own timeouts), and migrates it with
// rdma_migrate_id to an EventChannel; Dial does the same for an active id
// with rdma_create_id and asynchronous rdma_resolve_addr/route, so that many
// endpoints resolve at once without a thread each. One goroutine per channel
// reads its events through Go's network poller, so no OS thread is parked
// per endpoint, and dispatches them to the id they concern. Blocking helpers
// such as (*ID).Connect and (*ID).GetRequest wait on those events in Go,
// with a context.
//
// QPs share completion queues per channel and device, with one completion
// channel read by one more goroutine that routes each completion to its id
// by the work request id; a thousand connected endpoints cost a handful of
// descriptors instead of four each.
//
// Shared CQs count, for each QP, the queue depths the device gave it
// (ibv_query_qp after rdma_create_qp: Soft-RoCE rounds 100 up to 127),
// not those asked, so that no CQ can overflow.
//
// Devices come and go. Pools and PDs belong to a device's life (one
// opening of its context by librdmacm), never to a context pointer, which
// librdmacm frees and malloc reuses. At RDMA_CM_EVENT_DEVICE_REMOVAL the
// binding releases everything of the device on its own: each id, after
// its event is delivered, loses its QP, memory registrations and
// rdma_cm_id (it then behaves as closed; Close frees its buffers'
// memory); once no QP is left, the CQs, completion channels, PDs and the
// async event reader go, and librdmacm is made to close the context (it
// notices a removed device only by comparing device lists, which it does
// not do when no device is left: the binding then points the context's
// two descriptors at /dev/null). Soft-RoCE's `rdma link delete`, which
// waits for every descriptor of the device, so completes in about a
// second while the process runs. A PD released this way is allocated
// again, on the device of the same name, by the next QP made on it.
//
// Each device's async events (ibv_get_async_event) are read through the
// poller and acked at once; port down and up, QP and CQ errors reach the
// ids they concern as device events (PortError, PortActive, QPFatal,
// CQError, DeviceFatal), as do failures of the completion poller
// (CompletionFailed; the failed CQ or pool takes no new QPs). Waits for a
// CM event pass over them.
//
// Every QP, CQ and memory region pins memory: RaiseMemlockLimit lifts
// RLIMIT_MEMLOCK, and ENOMEM from those calls is a MemlockError that
// names the limit and how to raise it.
//
// A listener created with a QP configuration behaves as rdma_get_request
// documents: each incoming request gets a QP from the listener's PD and
// attributes before it is delivered.
//
// Errors name the librdmacm or verbs call and wrap its errno, so
// errors.Is(err, syscall.ENODEV) works. Arguments librdmacm would reject or
// truncate (a port of 0 where one is needed, private data over the port
// space's limit, caps over a device's limits) are refused in Go first.
//
// Memory: C memory holds no Go pointer; ids carry an integer key in their
// context, never a Go pointer; message buffers are C memory, which Go
// reaches only by copying (Buffer.Store, Buffer.Load) under the buffer's
// lock. A buffer registered for the peer's RDMA READ and WRITE
// (RegisterRemoteBuffer) is C memory too: its address and rkey go to the
// peer, never a Go pointer. Every resource has an idempotent Close, safe from any goroutine: an
// id's Close destroys its QP before it deregisters and frees its buffers,
// and posts and copies racing with it either finish first or return
// ErrClosed. Closing a listener rejects the connect requests it queued and
// nobody took. A listener's SRQ (UseSRQ) is destroyed after the last QP on
// it, before that QP's id lets the device (and its PD) go; its receive
// buffers are one C region, which an id on it sends from (PostSendSRQ)
// only while its QP, and so the SRQ, lives.
package rdmacm
