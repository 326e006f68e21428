package agent

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	protov2 "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// boundedCodec is gRPC's protobuf codec that first counts a request's
// repeated entries on the wire and refuses more than MaxRequestEntries,
// before decoding allocates anything for them.
type boundedCodec struct {
	encoding.CodecV2
}

func newBoundedCodec() boundedCodec {
	return boundedCodec{encoding.GetCodecV2(proto.Name)}
}

// responsePool holds the buffers the agent marshals its responses into,
// in tiers a power of two apart up to 1 MiB. gRPC's default pool goes
// from 32 KiB straight to 1 MiB, and clears a buffer's whole capacity
// each time it hands it out again: every List of a hundred objects
// (tens of KiB) cleared 1 MiB, about 5% of the agents' CPU in the
// benchmark of a plan across 100 agents.
var responsePool = func() mem.BufferPool {
	p, err := mem.NewBinaryTieredBufferPool(8, 12, 14, 15, 16, 17, 18, 19, 20)
	if err != nil {
		panic(err)
	}
	return p
}()

// Marshal is gRPC's, with responsePool for the messages it pools.
func (c boundedCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(protoadapt.MessageV2)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	size := protov2.Size(m)
	if mem.IsBelowBufferPoolingThreshold(size) {
		return c.CodecV2.Marshal(v)
	}
	buf := responsePool.Get(size)
	if _, err := (protov2.MarshalOptions{UseCachedSize: true}).MarshalAppend((*buf)[:0], m); err != nil {
		responsePool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, responsePool)}, nil
}

func (c boundedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(protoadapt.MessageV2)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	md := m.ProtoReflect().Descriptor()
	n, err := countEntries(b, md, 0)
	if err != nil {
		return fmt.Errorf("the %s request is malformed: %w", md.Name(), err)
	}
	if n > MaxRequestEntries {
		return fmt.Errorf("the %s request holds %d entries, more than the agent takes in one request (%d): send them in several requests", md.Name(), n, MaxRequestEntries)
	}
	return protov2.Unmarshal(b, m)
}

// maxDepth bounds countEntries's recursion as protobuf's decoder does.
const maxDepth = 100

// countEntries counts the elements of the repeated and map fields in b, a
// message of type md, nested messages included.
func countEntries(b []byte, md protoreflect.MessageDescriptor, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("messages nested more than %d deep", maxDepth)
	}
	total := 0
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return 0, protowire.ParseError(m)
		}
		value := b[n : n+m]
		b = b[n+m:]
		fd := md.Fields().ByNumber(num)
		if fd == nil {
			continue // unknown: kept as bytes, no larger decoded
		}
		isMessage := fd.Message() != nil && typ == protowire.BytesType
		switch {
		case fd.IsList() && typ == protowire.BytesType && !isMessage && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind:
			total += packedLen(value) // packed scalars: one entry each
		case fd.IsList() || fd.IsMap():
			total++
		}
		if isMessage {
			payload, _ := protowire.ConsumeBytes(value)
			inner, err := countEntries(payload, fd.Message(), depth+1)
			if err != nil {
				return 0, err
			}
			total += inner
		}
	}
	return total, nil
}

// packedLen is how many varints a packed field's value holds, an upper
// bound of its fixed-size elements too.
func packedLen(value []byte) int {
	payload, _ := protowire.ConsumeBytes(value)
	n := 0
	for _, c := range payload {
		if c < 0x80 {
			n++
		}
	}
	return n
}
