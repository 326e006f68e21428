package agentfabric

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// sysInfiniband is where the kernel lists RDMA devices; each port's
// gid_attrs/ndevs/N names the network interface behind GID N (RoCE).
var sysInfiniband = "/sys/class/infiniband"

// deviceFor names the RDMA device that serves address: the interface
// holding the address, or for a remote address the interface the kernel
// routes it through (learned by connecting a UDP socket, which sends
// nothing), mapped to the RDMA device whose GIDs use that interface, as
// rdma_resolve_addr would.
func deviceFor(address string) (string, error) {
	ip := net.ParseIP(address)
	if ip == nil {
		ips, err := net.LookupIP(address)
		if err != nil || len(ips) == 0 {
			return "", fmt.Errorf("cannot resolve %s: %v", address, err)
		}
		ip = ips[0]
	}
	if ip.IsUnspecified() {
		// A wildcard listener binds every device: the first one stands for
		// them in the plan's checks.
		if devs, _ := os.ReadDir(sysInfiniband); len(devs) > 0 {
			return devs[0].Name(), nil
		}
		return "", fmt.Errorf("%w: %s", planner.ErrNoDevice, nodevice.Help)
	}
	ifname, err := interfaceFor(ip)
	if err != nil {
		return "", err
	}
	dev, err := rdmaDeviceOf(ifname)
	if err != nil {
		return "", err
	}
	if dev == "" {
		return "", fmt.Errorf("%w: %s is reached through %s, which no RDMA device uses", planner.ErrNoDevice, address, ifname)
	}
	return dev, nil
}

func interfaceFor(ip net.IP) (string, error) {
	if name := interfaceHolding(ip); name != "" {
		return name, nil
	}
	c, err := net.Dial("udp", net.JoinHostPort(ip.String(), "9"))
	if err != nil {
		return "", fmt.Errorf("%w: no route to %s: %v", planner.ErrNoDevice, ip, err)
	}
	local := c.LocalAddr().(*net.UDPAddr).IP
	c.Close()
	if name := interfaceHolding(local); name != "" {
		return name, nil
	}
	return "", fmt.Errorf("%w: no interface holds %s, the source address toward %s", planner.ErrNoDevice, local, ip)
}

func interfaceHolding(ip net.IP) string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return i.Name
			}
		}
	}
	return ""
}

// rdmaDeviceOf returns the RDMA device with a GID on ifname, or "".
func rdmaDeviceOf(ifname string) (string, error) {
	ndevs, err := filepath.Glob(filepath.Join(sysInfiniband, "*", "ports", "*", "gid_attrs", "ndevs", "*"))
	if err != nil {
		return "", err
	}
	for _, p := range ndevs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // unused GID entries read as EINVAL
		}
		if strings.TrimSpace(string(b)) == ifname {
			rel, _ := filepath.Rel(sysInfiniband, p)
			return strings.SplitN(rel, string(filepath.Separator), 2)[0], nil
		}
	}
	return "", nil
}
