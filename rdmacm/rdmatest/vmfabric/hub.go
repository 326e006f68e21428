package vmfabric

import (
	"errors"
	"net"
	"sync"
	"time"
)

// hub is the wire: it repeats every frame a guest sends to every other
// guest, as an Ethernet hub. Each guest's qemu sends its frames from its own
// unix datagram socket (ports[i]) to the hub's.
type hub struct {
	conn  *net.UnixConn
	ports []*net.UnixAddr
	done  chan struct{}

	mu    sync.Mutex
	muted map[string]bool // the ports of frozen guests
}

func newHub(path string, ports []string) (*hub, error) {
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	h := &hub{conn: conn, done: make(chan struct{}), muted: map[string]bool{}}
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
			if p.Name == from.Name || h.isMuted(p.Name) {
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

// mute stops (or resumes) repeating frames to a port: a frozen guest
// reads none, and the hub would wait a second on each frame for it.
func (h *hub) mute(port string, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on {
		h.muted[port] = true
	} else {
		delete(h.muted, port)
	}
}

func (h *hub) isMuted(port string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.muted[port]
}

func (h *hub) Close() {
	h.conn.Close()
	<-h.done
}
