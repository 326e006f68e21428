// Package nodevice says, in one place, what a user whose host has no RDMA
// device is told: plan's and validate's device checks, apply's failures
// (the binding's ENODEV) and a remote agent's answers all say it in these
// words. It is plain Go, so that the configuration's checks need neither
// the binding nor the agent for it.
package nodevice

import "os"

// Summary heads a diagnostic that says Help.
const Summary = "No RDMA device on this host"

// Help is what is missing and how to get it: Soft-RoCE makes an RDMA
// device of an Ethernet interface, and rdmaform's Soft-RoCE VM runs it
// where even that is impossible (a kernel without RDMA, as on the hosts
// the project is built on).
const Help = "this host has no RDMA device. " +
	"Load Soft-RoCE to make one from an Ethernet interface: modprobe rdma_rxe; " +
	"rdma link add rxe0 type rxe netdev ETH (ETH a real, dummy or veth interface, not lo). " +
	"To try rdmaform without one, run it inside rdmaform's Soft-RoCE VM: scripts/vm-run (see docs/testbed.md)"

// sysInfiniband is where the kernel lists RDMA devices.
var sysInfiniband = "/sys/class/infiniband"

// OnThisHost reports whether this host has no RDMA device: the kernel
// lists none (or has no RDMA core at all).
func OnThisHost() bool {
	entries, err := os.ReadDir(sysInfiniband)
	return err != nil || len(entries) == 0
}
