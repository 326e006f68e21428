package vmfabric

import (
	"errors"
	"net"
	"time"
)

// hub is the wire: it repeats every frame a guest sends to every other
// guest, as an Ethernet hub. Each guest's qemu sends its frames from its own
// unix datagram socket (ports[i]) to the hub's.
type hub struct {
	conn  *net.UnixConn
	ports []*net.UnixAddr
	done  chan struct{}
}

func newHub(path string, ports []string) (*hub, error) {
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	h := &hub{conn: conn, done: make(chan struct{})}
	for _, p := range ports {
		h.ports = append(h.ports, &net.UnixAddr{Name: p, Net: "unixgram"})
	}
	go h.serve()
	return h, nil
}

func (h *hub) serve() {
	defer close(h.done)
	buf := make([]byte, 64<<10)
	for {
		n, from, err := h.conn.ReadFromUnix(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil || from == nil {
			continue
		}
		for _, p := range h.ports {
			if p.Name == from.Name {
				continue
			}
			// A guest that is off has no socket (the send fails at
			// once); one that does not read for a second loses the
			// frame, as on a real wire, rather than stalling the others.
			_ = h.conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = h.conn.WriteToUnix(buf[:n], p)
		}
	}
}

func (h *hub) Close() {
	h.conn.Close()
	<-h.done
}
