package apply

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// conditionsError turns the errors of a precondition or postcondition
// check into one error that says which condition failed, where, and its
// error_message; nil when there are none.
func conditionsError(diags hcl.Diagnostics) error {
	var msgs []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		m := d.Summary
		switch {
		case d.Summary == "Resource precondition failed" || d.Summary == "Resource postcondition failed":
			m = d.Detail // the operation's name says which
		case d.Detail != "":
			m += ": " + d.Detail
		}
		if d.Subject != nil {
			m += fmt.Sprintf(" (%s:%d,%d)", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}
