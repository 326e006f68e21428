package apply

import "context"

// SpecReader is implemented by a fabric that can say what an object it
// holds was made with: plan -generate-config-out writes the configuration
// of an import block's object from it.
type SpecReader interface {
	// ReadSpec returns the spec of the object the fabric holds as h.Name
	// (one of Spec's fields set, by its kind), with its protection domain
	// as the id the fabric knows it by.
	ReadSpec(ctx context.Context, h Handle) (Spec, error)
}
