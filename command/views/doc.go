// Package views is how rdmaform's commands print, as Terraform's
// internal/command/views: a human View (streams, colour, terminal) and a
// JSONView that writes Terraform's machine-readable UI, one JSON object a
// line. A command picks one of them once, from its -json flag
// (WantsJSON), and prints only through it.
package views
