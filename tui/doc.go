// Package tui is `rdmaform monitor`: a bubbletea program that shows every
// object the agent holds and how each connection is doing, live.
//
// # What it reads
//
// The monitor reads a [Source]. The agent's watch-stream client implements
// it by converting its protobuf messages into this package's types:
//
//   - [Object]: one protection domain, listener, endpoint or accepted
//     connection, addressed in configuration terms ("endpoint.client[3]");
//     an accepted connection has its own address and Parent set to its
//     listener's. Every [Update] carries a whole Object, never a delta.
//   - [Update]: an object's new state, or Deleted.
//   - [AgentInfo]: the agent's socket, pid, start time and devices.
//
// The command that starts it may also give [Options].Declared, the
// objects the configuration and the state declare ([Declared]): the
// monitor merges them with the agent's and shows those the agent does
// not hold as missing; [Options].Taint, which the `t` key calls,
// confirmed; and [Options].Reconnect, which the `r` key calls, confirmed,
// with the object's host and address. The monitor owns no state and
// dials no agent for actions: the command does.
//
// Their text comes from outside (the agent's clients name objects, peers
// send reject reasons and private data): the relay escapes every string as
// it comes in (tui/termsafe), so that nothing a Source sends can drive
// the terminal or throw the table's widths off.
//
// Source.Watch sends one snapshot then updates until its context ends or
// the connection fails; the monitor calls it again with back-off (1 s,
// then 2 s) and meanwhile shows the last known view, dimmed, with its
// time: what the agent deleted just before it went (it stops so) is put
// back.
//
// A fabric is [Options].Hosts: one [Host] (a name and its own Source) per
// agent, each run by a relay of its own. Objects carry their host's name
// (Object.Host), the rows are grouped by host, and a host whose Source
// fails keeps its last rows, dimmed and marked, while the others go on;
// addresses are the fabric's, so peers match across hosts (hosts.go).
//
// # How updates reach the screen
//
// One relay goroutine runs Watch. It keeps only the latest Update of each
// object until the next frame, so its memory is bounded by the number of
// objects whatever the event rate, and the program collects a batch at
// most once a frame through a re-armed command, so the screen never waits
// on the network. Shutdown is cancel, then wait ([Model.Close]).
//
// A batch costs the screen what it changes, not the fabric's size: the
// world shows again only the changed objects and matches their peers by
// address (peers.go); the table takes out the rows whose sort key
// changed and merges them back in order (table_order.go), and draws
// again only the rows on screen whose look changed (row_cache.go).
//
// # Layout
//
// The root [Model] owns the layout and the focus. Its panes are the header
// (agent, devices, totals by status and the problem count, the banner when
// the agent is away), the table (rows keyed by address, only the visible
// ones rendered, coloured by health), the detail of the selected object
// (the whole screen when describing it) and the footer (key help, an
// action's y/n prompt and outcome). Styles are in
// styles.go and come from one lipgloss renderer, with an ASCII profile for
// -no-color and NO_COLOR.
package tui
