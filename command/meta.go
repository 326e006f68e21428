package command

import "io"

// Meta is what every command shares, as in Terraform's internal/command:
// the standard streams, which tests capture.
type Meta struct {
	In       io.Reader
	Out, Err io.Writer
}
