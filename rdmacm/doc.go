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
// lock. Every resource has an idempotent Close, safe from any goroutine: an
// id's Close destroys its QP before it deregisters and frees its buffers,
// and posts and copies racing with it either finish first or return
// ErrClosed. Closing a listener rejects the connect requests it queued and
// nobody took.
package rdmacm
