// Package rdmanl reads the kernel's RDMA resource tracking over RDMA
// netlink (NETLINK_RDMA), as iproute2's "rdma resource show cm_id" and
// "rdma resource show qp" do: every rdma_cm_id and QP the kernel tracks,
// with its device and port, addresses, state, QP number and the process
// that made it. It is pure Go on github.com/mdlayher/netlink; the
// attribute numbers are those of include/uapi/rdma/rdma_netlink.h, which
// the kernel keeps stable (its ABI).
//
// The kernel tracks an rdma_cm_id only once it is attached to a device
// (bound, resolved, listening on a device's address): an id just created
// is not listed. A listener on a wildcard address is listed once per
// device (the kernel's own listen ids on each, which carry the process of
// the id they serve). The PID of an entry is the thread that made it, in
// the reader's PID namespace; ProcessOf maps it to its process.
//
// Parse* decode dump replies and need no socket, so that recorded replies
// (testdata) test the decoding on a host without RDMA.
package rdmanl
