package tui

import (
	"context"
	"errors"
)

// Source is what the monitor reads from. The agent's watch-stream client
// implements it; tests and the demo use synthetic ones.
type Source interface {
	// Watch connects, calls snapshot once with every object the agent holds,
	// then calls update for each change until ctx ends or the connection
	// fails, and returns the reason (ctx.Err() after cancellation).
	//
	// snapshot and update are called from Watch's own goroutine, one at a
	// time, and return quickly: they never wait for the screen. The monitor
	// keeps the slice passed to snapshot and the Objects passed to update, so
	// the source must not modify them afterwards.
	//
	// The monitor calls Watch again after a failure, with back-off.
	Watch(ctx context.Context, snapshot func([]Object, AgentInfo), update func(Update)) error
}

// Errors a Source's Watch returns (or wraps) to say why a live connection
// ended, so the monitor can say so in words rather than the transport's.
var (
	// ErrAgentStopped: the agent said it stopped (rdmaform agent stop).
	ErrAgentStopped = errors.New("the agent stopped")
	// ErrAgentGone: the connection closed without a word from the agent
	// (it crashed, or was killed).
	ErrAgentGone = errors.New("connection closed")
)
