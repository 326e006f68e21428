package agentfabric

import (
	"context"
	"fmt"
	"strings"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var _ apply.Importer = (*Fabric)(nil)

// Import reads the object the agent holds as h.Name and checks it against
// spec: the same kind, and the spec the agent was given is the one the
// configuration makes (else the error names the fields that differ).
func (f *Fabric) Import(ctx context.Context, h apply.Handle, spec apply.Spec) (state.Facts, error) {
	o, err := f.object(ctx, h.Name)
	if err != nil {
		return state.Facts{}, err
	}
	var want, got proto.Message
	var kind pb.Kind
	switch {
	case spec.ProtectionDomain != nil:
		kind, want, got = pb.Kind_PROTECTION_DOMAIN, &pb.ProtectionDomainSpec{Device: spec.ProtectionDomain.Device}, o.GetProtectionDomain()
	case spec.Listener != nil:
		kind, want, got = pb.Kind_LISTENER, listenerSpec(spec.Listener), o.GetListener()
	case spec.Endpoint != nil:
		kind, want, got = pb.Kind_ENDPOINT, endpointSpec(spec.Endpoint), o.GetEndpoint()
	default:
		return state.Facts{}, fmt.Errorf("empty spec")
	}
	if o.Kind != kind {
		return state.Facts{}, fmt.Errorf("the agent's %s is of kind %s; the configuration declares %s, of kind %s", h.Name, kindWord(o.Kind), h.Addr, h.Addr.Kind)
	}
	if diff := specDiff(want.ProtoReflect(), got.ProtoReflect(), ""); len(diff) > 0 {
		return state.Facts{}, fmt.Errorf("the agent's %s does not match the configuration of %s: %s differ; change the configuration to match, or import it elsewhere",
			h.Name, h.Addr, strings.Join(diff, ", "))
	}
	if kind == pb.Kind_ENDPOINT && !established(o) && !failed(o) {
		return f.awaitImported(ctx, h, spec.Endpoint)
	}
	facts := f.factsOf(o)
	facts.CreateToken = o.Token
	return facts, nil
}

// awaitImported waits for an endpoint being imported that is still
// connecting (one a killed apply asked for moments ago) to be established,
// as its create would have: one that fails is not adopted but dropped, as
// a failed create is.
func (f *Fabric) awaitImported(ctx context.Context, h apply.Handle, e *config.Endpoint) (state.Facts, error) {
	if err := f.watching(ctx); err != nil {
		return state.Facts{}, err
	}
	updates := f.watch.subscribe(h.Name)
	defer f.watch.unsubscribe(h.Name)
	o, err := f.object(ctx, h.Name) // again, now that no change is missed
	if err != nil {
		return state.Facts{}, err
	}
	facts, err := f.waitEstablished(ctx, nil, h.Name, e, o, updates)
	if err != nil {
		return state.Facts{}, fmt.Errorf("it was still connecting, and failed (the agent dropped it; the next apply makes it): %w", err)
	}
	facts.CreateToken = o.Token
	return facts, nil
}

func kindWord(k pb.Kind) string { return strings.ToLower(k.String()) }

// specDiff lists the paths (qp.max_send_wr) of the fields whose values
// differ between a and b, two messages of one type, but create_timeout:
// how long the create waited says nothing of the object made (and a
// change of it, in place, does not reach the agent).
func specDiff(a, b protoreflect.Message, prefix string) []string {
	var out []string
	fields := a.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := prefix + string(fd.Name())
		if name == "create_timeout" {
			continue
		}
		av, bv := a.Get(fd), b.Get(fd)
		switch {
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			if a.Has(fd) != b.Has(fd) {
				out = append(out, name)
			} else if a.Has(fd) {
				out = append(out, specDiff(av.Message(), bv.Message(), name+".")...)
			}
		case !av.Equal(bv):
			out = append(out, name)
		}
	}
	return out
}
