package rdmanl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/mdlayher/netlink"
)

// ParseDevices decodes the replies of a device dump (RDMA_NLDEV_CMD_GET).
func ParseDevices(msgs []netlink.Message) ([]Device, error) {
	var out []Device
	for _, m := range msgs {
		var d Device
		err := decode(m.Data, func(ad *netlink.AttributeDecoder) {
			switch ad.Type() {
			case attrDevIndex:
				d.Index = ad.Uint32()
			case attrDevName:
				d.Name = ad.String()
			}
		})
		if err != nil {
			return nil, fmt.Errorf("decoding RDMA netlink's device list: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseCMIDs decodes the replies of an RDMA_NLDEV_CMD_RES_CM_ID_GET dump:
// each reply names its device and carries a table of entries.
func ParseCMIDs(msgs []netlink.Message) ([]CMID, error) {
	var out []CMID
	for _, m := range msgs {
		var dev Device
		var entries []CMID
		err := decode(m.Data, func(ad *netlink.AttributeDecoder) {
			switch ad.Type() {
			case attrDevIndex:
				dev.Index = ad.Uint32()
			case attrDevName:
				dev.Name = ad.String()
			case attrResCMID:
				ad.Nested(func(table *netlink.AttributeDecoder) error {
					for table.Next() {
						if table.Type() != attrResCMIDEntry {
							continue
						}
						var c CMID
						table.Nested(func(e *netlink.AttributeDecoder) error {
							cmIDAttr(&c, e)
							return nil
						})
						entries = append(entries, c)
					}
					return table.Err()
				})
			}
		})
		if err != nil {
			return nil, fmt.Errorf("decoding RDMA netlink's cm_id dump: %w", err)
		}
		for _, c := range entries {
			c.Device, c.DeviceIndex = dev.Name, dev.Index
			out = append(out, c)
		}
	}
	return out, nil
}

func cmIDAttr(c *CMID, e *netlink.AttributeDecoder) {
	for e.Next() {
		switch e.Type() {
		case attrPortIndex:
			c.Port = e.Uint32()
		case attrResCMIDN:
			c.Number = e.Uint32()
		case attrResState:
			c.State = CMState(e.Uint8())
		case attrResPS:
			c.PortSpace = PortSpace(e.Uint32())
		case attrResSrcAddr:
			c.Src = sockaddr(e.Bytes())
		case attrResDstAddr:
			c.Dst = sockaddr(e.Bytes())
		case attrResLQPN:
			c.HasQP, c.QPNum = true, e.Uint32()
		case attrResType:
			c.QPType = QPType(e.Uint8())
		case attrResPID:
			c.PID = e.Uint32()
		case attrResKernName:
			c.KernName = e.String()
		}
	}
}

// ParseQPs decodes the replies of an RDMA_NLDEV_CMD_RES_QP_GET dump.
func ParseQPs(msgs []netlink.Message) ([]QP, error) {
	var out []QP
	for _, m := range msgs {
		var dev Device
		var entries []QP
		err := decode(m.Data, func(ad *netlink.AttributeDecoder) {
			switch ad.Type() {
			case attrDevIndex:
				dev.Index = ad.Uint32()
			case attrDevName:
				dev.Name = ad.String()
			case attrResQP:
				ad.Nested(func(table *netlink.AttributeDecoder) error {
					for table.Next() {
						if table.Type() != attrResQPEntry {
							continue
						}
						var q QP
						table.Nested(func(e *netlink.AttributeDecoder) error {
							qpAttr(&q, e)
							return nil
						})
						entries = append(entries, q)
					}
					return table.Err()
				})
			}
		})
		if err != nil {
			return nil, fmt.Errorf("decoding RDMA netlink's QP dump: %w", err)
		}
		for _, q := range entries {
			q.Device, q.DeviceIndex = dev.Name, dev.Index
			out = append(out, q)
		}
	}
	return out, nil
}

func qpAttr(q *QP, e *netlink.AttributeDecoder) {
	for e.Next() {
		switch e.Type() {
		case attrPortIndex:
			q.Port = e.Uint32()
		case attrResLQPN:
			q.Number = e.Uint32()
		case attrResRQPN:
			q.Remote = e.Uint32()
		case attrResType:
			q.Type = QPType(e.Uint8())
		case attrResState:
			q.State = QPState(e.Uint8())
		case attrResPDN:
			q.PDN = e.Uint32()
		case attrResPID:
			q.PID = e.Uint32()
		case attrResKernName:
			q.KernName = e.String()
		}
	}
}

// decode walks a message's attributes with f, returning the first error,
// a nested table's included.
func decode(b []byte, f func(*netlink.AttributeDecoder)) error {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return err
	}
	for ad.Next() {
		f(ad)
	}
	return ad.Err()
}

// sockaddr reads a struct __kernel_sockaddr_storage holding a sockaddr_in
// or sockaddr_in6: family in the host's order, port in the network's.
// Other families (AF_IB) give an invalid AddrPort.
func sockaddr(b []byte) netip.AddrPort {
	if len(b) < 4 {
		return netip.AddrPort{}
	}
	port := binary.BigEndian.Uint16(b[2:4])
	switch binary.NativeEndian.Uint16(b[0:2]) {
	case syscall.AF_INET:
		if len(b) >= 8 {
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), port)
		}
	case syscall.AF_INET6:
		if len(b) >= 24 { // family, port, flowinfo, then the address
			return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])), port)
		}
	}
	return netip.AddrPort{}
}

// errNoRDMA is what Dial wraps when the kernel has no RDMA netlink.
var errNoRDMA = errors.New("the kernel has no RDMA netlink (no RDMA core: no RDMA device can exist on this host)")
