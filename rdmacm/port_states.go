package rdmacm

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// sysfsInfiniband is where the kernel lists RDMA devices.
var sysfsInfiniband = "/sys/class/infiniband"

// PortStates reads every RDMA device's port states from sysfs, as
// ibv_devinfo names them (PORT_ACTIVE, PORT_DOWN, ...), without opening
// a device. librdmacm's rdma_get_devices keeps each device it lists open
// until the process exits, and an open device holds up its removal
// (rdma link delete waits for it): a collector read at every scrape must
// not pin the devices it reports on. Only Name and each Port's Num and
// State are set. A host without RDMA devices has none.
func PortStates() ([]Device, error) {
	entries, err := os.ReadDir(sysfsInfiniband)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var devs []Device
	for _, e := range entries {
		ports, err := os.ReadDir(filepath.Join(sysfsInfiniband, e.Name(), "ports"))
		if err != nil {
			continue // removed while read
		}
		d := Device{Name: e.Name()}
		for _, p := range ports {
			num, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join(sysfsInfiniband, e.Name(), "ports", p.Name(), "state"))
			if err != nil {
				continue
			}
			d.Ports = append(d.Ports, Port{Num: num, State: portStateWord(string(b))})
		}
		sort.Slice(d.Ports, func(i, j int) bool { return d.Ports[i].Num < d.Ports[j].Num })
		devs = append(devs, d)
	}
	return devs, nil
}

// portStateWord turns sysfs's "4: ACTIVE" into ibv_devinfo's PORT_ACTIVE.
func portStateWord(s string) string {
	s = strings.TrimSpace(s)
	if _, word, ok := strings.Cut(s, ": "); ok {
		s = word
	}
	return "PORT_" + strings.ReplaceAll(strings.ToUpper(s), " ", "_")
}
