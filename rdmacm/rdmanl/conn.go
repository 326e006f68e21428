package rdmanl

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
)

// Conn is a socket on RDMA netlink. Its methods are safe from any
// goroutine (netlink.Conn serialises requests); Close is idempotent.
type Conn struct {
	c *netlink.Conn
}

// Dial opens an RDMA netlink socket. On a kernel without an RDMA core it
// fails with an error that says so and wraps the errno
// (EPROTONOSUPPORT).
func Dial() (*Conn, error) {
	c, err := netlink.Dial(familyRDMA, nil)
	if err != nil {
		if errors.Is(err, syscall.EPROTONOSUPPORT) {
			return nil, fmt.Errorf("socket(AF_NETLINK, NETLINK_RDMA): %w: %w", errNoRDMA, err)
		}
		return nil, fmt.Errorf("socket(AF_NETLINK, NETLINK_RDMA): %w", err)
	}
	return &Conn{c: c}, nil
}

// Close closes the socket.
func (c *Conn) Close() error {
	if c == nil || c.c == nil {
		return nil
	}
	err := c.c.Close()
	c.c = nil
	return err
}

// Devices lists the RDMA devices.
func (c *Conn) Devices() ([]Device, error) {
	msgs, err := c.dump(cmdGet, nil)
	if err != nil {
		return nil, err
	}
	return ParseDevices(msgs)
}

// CMIDs lists every rdma_cm_id the kernel tracks, on every device.
func (c *Conn) CMIDs() ([]CMID, error) {
	var out []CMID
	err := c.eachDevice(cmdResCMIDGet, func(msgs []netlink.Message) error {
		ids, err := ParseCMIDs(msgs)
		out = append(out, ids...)
		return err
	})
	return out, err
}

// QPs lists every QP the kernel tracks, on every device.
func (c *Conn) QPs() ([]QP, error) {
	var out []QP
	err := c.eachDevice(cmdResQPGet, func(msgs []netlink.Message) error {
		qps, err := ParseQPs(msgs)
		out = append(out, qps...)
		return err
	})
	return out, err
}

// eachDevice dumps cmd for each device in turn: the kernel's resource
// dumps are per device (they require RDMA_NLDEV_ATTR_DEV_INDEX). A device
// removed between the two requests is skipped.
func (c *Conn) eachDevice(cmd uint16, f func([]netlink.Message) error) error {
	devs, err := c.Devices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		msgs, err := c.dumpDevice(cmd, d.Index)
		if errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.EINVAL) && !c.hasDevice(d.Index) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		if err := f(msgs); err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
	}
	return nil
}

func (c *Conn) hasDevice(index uint32) bool {
	devs, err := c.Devices()
	if err != nil {
		return true
	}
	for _, d := range devs {
		if d.Index == index {
			return true
		}
	}
	return false
}

// dumpDevice dumps cmd's resources of one device.
func (c *Conn) dumpDevice(cmd uint16, devIndex uint32) ([]netlink.Message, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(attrDevIndex, devIndex)
	b, err := ae.Encode()
	if err != nil {
		return nil, err
	}
	return c.dump(cmd, b)
}

// dump sends a dump request (NLM_F_REQUEST | NLM_F_DUMP, as iproute2's
// rdma tool does) and returns the replies, up to the kernel's
// NLMSG_DONE.
func (c *Conn) dump(cmd uint16, attrs []byte) ([]netlink.Message, error) {
	if c == nil || c.c == nil {
		return nil, errors.New("RDMA netlink: the socket is closed")
	}
	msgs, err := c.c.Execute(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(messageType(cmd)), Flags: netlink.Request | netlink.Dump},
		Data:   attrs,
	})
	if err != nil {
		return nil, fmt.Errorf("RDMA netlink %s dump: %w", cmdName(cmd), err)
	}
	return msgs, nil
}

func cmdName(cmd uint16) string {
	switch cmd {
	case cmdGet:
		return "RDMA_NLDEV_CMD_GET"
	case cmdResQPGet:
		return "RDMA_NLDEV_CMD_RES_QP_GET"
	case cmdResCMIDGet:
		return "RDMA_NLDEV_CMD_RES_CM_ID_GET"
	}
	return fmt.Sprintf("RDMA_NLDEV command %d", cmd)
}
