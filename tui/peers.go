package tui

import "slices"

// The world matches, for each accepted connection, the endpoint at its
// other end among the objects shown, and the other way round: the
// connection's remote address is the endpoint's local one and its local
// address the endpoint's remote one (the listener's). Both ends are on
// this agent today; an endpoint of another host's agent, once the monitor
// watches several, matches the same way, its addresses being the
// fabric's. Connections without a match (a client of another host, a UD
// listener's) have none.
//
// peerIndex keeps the objects by those addresses, so that a change
// matches again only the objects at the changed one's addresses.

// ends are an endpoint's local and remote addresses; a connection is
// filed under the endpoint's ends it would match (its remote, its local).
type ends struct{ local, remote string }

// filedAt is where an address is filed, and whether as a connection.
type filedAt struct {
	ends
	conn bool
}

type peerIndex struct {
	endpoints map[ends][]string
	conns     map[ends][]string
	filed     map[string]filedAt
	dirty     map[ends]struct{}
	// unfiled are addresses taken out of the index since the last match:
	// their peers go.
	unfiled []string
}

func newPeerIndex() peerIndex {
	return peerIndex{endpoints: make(map[ends][]string), conns: make(map[ends][]string),
		filed: make(map[string]filedAt), dirty: make(map[ends]struct{})}
}

// update files address a's new object o (nil: gone) in place of its old
// one.
func (p *peerIndex) update(a string, o *Object) {
	e, conn, ok := filing(o)
	was, wasFiled := p.filed[a]
	if ok && wasFiled && was == (filedAt{e, conn}) {
		return // filed where it was, so no peer changes: most changes are of status
	}
	if wasFiled {
		m := p.endpoints
		if was.conn {
			m = p.conns
		}
		if m[was.ends] = remove(m[was.ends], a); len(m[was.ends]) == 0 {
			delete(m, was.ends)
		}
		delete(p.filed, a)
		p.dirty[was.ends] = struct{}{}
		p.unfiled = append(p.unfiled, a)
	}
	if !ok {
		return
	}
	m := p.endpoints
	if conn {
		m = p.conns
	}
	m[e] = append(m[e], a)
	p.filed[a] = filedAt{e, conn}
	p.dirty[e] = struct{}{}
}

// filing is where o is filed, and whether as a connection; ok is false
// for an object that has no peer to match.
func filing(o *Object) (e ends, conn, ok bool) {
	switch {
	case o == nil:
	case o.Kind == KindEndpoint && o.LocalAddr != "" && o.RemoteAddr != "" && o.Status != StatusMissing:
		return ends{o.LocalAddr, o.RemoteAddr}, false, true
	case o.Kind == KindConnection && o.RemoteAddr != "":
		return ends{o.RemoteAddr, o.LocalAddr}, true, true
	}
	return ends{}, false, false
}

// match sets the peers of the objects at the addresses changed since
// the last match, and calls moved with each whose peer changed. Where
// several endpoints share their ends, the first by address is the
// connections' peer; where several connections match one endpoint, the
// last by address is its peer.
func (p *peerIndex) match(peers map[string]string, moved func(a string)) {
	set := func(a, peer string) {
		if was, ok := peers[a]; ok && was == peer || !ok && peer == "" {
			return
		}
		if peer == "" {
			delete(peers, a)
		} else {
			peers[a] = peer
		}
		moved(a)
	}
	for _, a := range p.unfiled {
		if _, ok := p.filed[a]; !ok {
			set(a, "")
		}
	}
	p.unfiled = p.unfiled[:0]
	for e := range p.dirty {
		eps, conns := p.endpoints[e], p.conns[e]
		var ep, conn string
		if len(eps) > 0 && len(conns) > 0 {
			ep, conn = slices.Min(eps), slices.Max(conns)
		}
		for _, a := range eps {
			if a == ep {
				set(a, conn)
			} else {
				set(a, "")
			}
		}
		for _, a := range conns {
			set(a, ep)
		}
	}
	clear(p.dirty)
}

func remove(list []string, a string) []string {
	if i := slices.Index(list, a); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	return list
}
