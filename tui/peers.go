package tui

// matchPeers finds, for each accepted connection, the endpoint at its
// other end among the objects shown, and the other way round: the
// connection's remote address is the endpoint's local one and its local
// address the endpoint's remote one (the listener's). Both ends are on
// this agent today; an endpoint of another host's agent, once the monitor
// watches several, matches the same way, its addresses being the
// fabric's. Connections without a match (a client of another host, a UD
// listener's) have none.
func (w *world) matchPeers() {
	clear(w.peers)
	conns := 0
	for _, o := range w.objects {
		if o.Kind == KindConnection && o.RemoteAddr != "" {
			conns++
		}
	}
	if conns == 0 {
		return
	}
	type ends struct{ local, remote string }
	endpoints := make(map[ends]string)
	for a, o := range w.objects {
		if o.Kind == KindEndpoint && o.LocalAddr != "" && o.RemoteAddr != "" && o.Status != StatusMissing {
			endpoints[ends{o.LocalAddr, o.RemoteAddr}] = a
		}
	}
	for a, o := range w.objects {
		if o.Kind != KindConnection || o.RemoteAddr == "" {
			continue
		}
		if e, ok := endpoints[ends{o.RemoteAddr, o.LocalAddr}]; ok {
			w.peers[a] = e
			w.peers[e] = a
		}
	}
}
