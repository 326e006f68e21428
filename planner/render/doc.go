// Package render shows plans: Human writes them as Terraform does, JSON
// writes the machine-readable form. Both read a planner.Plan and nothing
// else, so the same plan renders the same way from plan, apply and show.
package render
