// Package multihost holds the end-to-end test of one configuration
// managing a fabric of several hosts: three Soft-RoCE VMs
// (rdmacm/rdmatest/vmfabric), an agent in each over mutual TLS, the CLI
// and a real etcd on the host. Its test (build tag integration) runs on
// the host, never in scripts/vm-run: scripts/test runs it with the
// several-VM harness's tests. docs/testbed.md says how to run it by hand.
package multihost
