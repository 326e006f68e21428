// Package views is how rdmaform's commands print, as Terraform's
// internal/command/views: per command an interface with a human and a
// JSON implementation, chosen once from its -json flag.
//
//   - Operation: plan, apply, destroy, refresh (human: the plan's text,
//     progress lines, closing line; JSON: Terraform's machine-readable UI).
//   - Validate: diagnostics and "Success!", or validate's -json document.
//   - Status: the agent's objects as a table, or one JSON document.
//
// Every command reports its errors and warnings through one method,
// Diagnostics, chosen once per command from -json: View.Diagnostics
// writes Terraform's human form on the error stream ("Error: SUMMARY", a
// blank line, the detail; the configuration's diagnostics through its
// renderer, which quotes their source), JSONView.Diagnostics a line of
// type "diagnostic" of the machine-readable UI ({"@level", "@message":
// "Error: SUMMARY", "@module": "rdmaform.ui", "@timestamp", "diagnostic":
// {"severity", "summary", "detail"}, "type"}).
//
// With -json, a command reads the flag before parsing its others
// (WantsJSON, as Terraform's arguments.ParseView), so that even a bad
// flag is reported in JSON. Plan, apply, destroy and refresh then write
// every message as a line of the machine-readable UI on standard output;
// the notes lower layers write as text (an agent started, a state lock
// waited for) become "log" lines through JSONView.LogWriter. Commands
// whose -json output is one document (status, show, output, version)
// write their diagnostics and notes as those lines on standard error
// instead, so that standard output holds only the document; validate
// -json puts its diagnostics in its document, as Terraform's.
//
// Colour comes from one helper, tui/colorize, which View.Colorize turns
// on only on a terminal and without -no-color.
package views
