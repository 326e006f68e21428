package agent

// The agent's bounds on what one client may ask of it, so that no request
// can take its memory (a request of a million empty entries, 2 MB on the
// wire, once grew it from 27 MB to 419 MB). rdmaform's own requests stay
// far below them: it sends endpoints and deletes 256 to a call.
const (
	// MaxRequestBytes bounds a request's size on the wire (gRPC's
	// MaxRecvMsgSize). Replies are not bounded by it: a list of 100,000
	// objects is larger.
	MaxRequestBytes = 16 << 20
	// MaxRequestEntries bounds the repeated entries of one request, at any
	// depth (endpoints of CreateEndpoints, addresses of DeleteMany, a
	// filter's prefixes...): each costs far more memory decoded than its
	// two bytes on the wire, so the bound is checked before decoding.
	MaxRequestEntries = 10_000
	// MaxObjects bounds the objects an agent holds (protection domains,
	// listeners, endpoints and accepted connections).
	MaxObjects = 100_000
	// MaxNameBytes bounds an object's name: a configuration address
	// (config.MaxAddressBytes, 256) with its "@namespace" and "#suffix".
	MaxNameBytes = 512
	// MaxProbeSize is the largest probe: the agent echoes and sends
	// probes from registered buffers of this size. The configuration
	// refuses larger ones by its own copy (config.MaxProbeSize), which a
	// test holds equal to this one.
	MaxProbeSize = 4096
)
