// Package vmfabric boots several Soft-RoCE VMs on one virtual wire, for
// tests that run on the host and need RDMA between hosts: an agent in each
// guest, the CLI on the host reaching them through loopback forwarding.
//
//	f := vmfabric.Boot(t, vmfabric.Spec{Hosts: 3, Forward: []int{7470}})
//	out, code, err := f.Host(0).Run(ctx, "rping", "-s", "-a", f.Host(0).Addr(), "-C", "3")
//	agent, err := f.Host(1).Start("/path/to/rdmaform", "agent", ...)
//	conn, err := net.Dial("tcp", f.Host(1).Forwarded(7470))
//	f.Host(1).PowerOff() // pulls the plug: qemu is killed
//	f.Host(1).Boot(ctx)  // same wire, address and forwarded ports
//	f.Host(1).Freeze()   // a pulled cable: qemu stopped, its ports silent
//	f.Host(1).Thaw()
//
// Each guest is the VM of scripts/vm-run (the image of scripts/vm-image,
// the host's root file system shared read-only, the working tree shared
// writable at its host path) with, instead of a dummy netdev:
//
//   - a virtio NIC on the wire: every guest's wire NIC is a qemu
//     "-netdev dgram" on a unix datagram socket, and a hub in the test
//     process repeats each frame to every other guest, as an Ethernet hub
//     would. All guests share one segment, 10.77.1.0/24: host i (from 0)
//     has 10.77.1.(i+1), and the Soft-RoCE device rxe0 on that NIC. No
//     frame touches a host network interface, not even loopback. Datagrams
//     have no connection, so a guest powered off and booted again rejoins
//     the wire; a "-netdev socket" listen/connect pair would not survive
//     its listening side's restart (qemu's connecting side does not
//     reconnect).
//   - with Spec.Forward, a second NIC on qemu's user network (restrict=on:
//     no packet leaves for anywhere but the forwarded ports), with the
//     static address 10.0.2.15/24 and no route, and for each port P a
//     "hostfwd" from a free port of 127.0.0.1 to 10.0.2.15:P. A guest
//     service must listen on 10.0.2.15 or 0.0.0.0 to be reached there.
//
// Commands run in a guest through its control share: the guest side
// (scripts/vm-guest, shared with vm-run) runs every job file dropped there
// in the background, with the output and exit code written back. Jobs run
// from the working tree's root with RDMAFORM_IN_VM=1, RDMAFORM_TEST_ADDR
// (the host's wire address), RDMAFORM_TEST_DEVICE=rxe0 and
// RDMAFORM_TEST_NETDEV (the wire NIC) set. The guest's /tmp is its own:
// binaries go under the working tree (.cache/).
//
// Guests boot concurrently, with 1 vCPU and 1 GiB each by default (TCG
// unless the CPU has VMX/SVM). Close, registered by Boot with t.Cleanup,
// kills every qemu; a qemu also dies with the test process. The serial
// console of each guest (kernel messages, the guest's set-up) is in
// Host.ConsoleLog, and its tail is logged when a test failed.
package vmfabric
