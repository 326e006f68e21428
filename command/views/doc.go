// Package views is how rdmaform's commands print, as Terraform's
// internal/command/views: per command an interface with a human and a
// JSON implementation, chosen once from its -json flag.
//
//   - Operation: plan, apply, destroy, refresh (human: the plan's text,
//     progress lines, closing line; JSON: Terraform's machine-readable UI).
//   - Validate: diagnostics and "Success!", or validate's -json document.
//   - Status: the agent's objects as a table, or one JSON document.
//
// With -json, a command reads the flag before parsing its others
// (WantsJSON, as Terraform's arguments.ParseView), so that even a bad
// flag is reported in JSON. Plan, apply, destroy, refresh and status then
// write every message as a line of the machine-readable UI on standard
// output: JSONView writes the lines ({"@level", "@message", "@module":
// "rdmaform.ui", "@timestamp", "type", ...}), and its TextWriter turns
// what the commands' lower layers print as "Error: summary\n\ndetail"
// (backend, lock and agent errors) into "diagnostic" lines and any other
// note into a "log" line. Commands whose -json output is one document
// (status, show, output, version) write those lines on standard error
// instead, so that standard output holds only the document; validate
// -json puts such errors in its document, as Terraform's.
//
// Colour comes from one helper, tui/colorize, which View.Colorize turns
// on only on a terminal and without -no-color.
package views
