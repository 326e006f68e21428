package rdmacm

import "fmt"

// Completion is a work completion (ibv_wc) of a send or receive.
type Completion struct {
	WRID   uint64
	Status int    // IBV_WC_SUCCESS is 0
	Opcode int    // IBV_WC_SEND 0, IBV_WC_RECV 128, ...
	Bytes  int    // received length, for receives
	Text   string // ibv_wc_status_str of Status
	// SrcQP is the sending QP's number, for receives on a UD QP.
	SrcQP uint32
	src   udSource
}

// StatusFlushed is IBV_WC_WR_FLUSH_ERR: the work request was flushed
// because the QP went to the error state, which every disconnection does;
// the completion that made it go there, if any, came first with its own
// status.
const StatusFlushed = 5

// Flushed reports whether the work request was flushed (StatusFlushed).
func (e *CompletionError) Flushed() bool { return e.Completion.Status == StatusFlushed }

// CompletionError is a work request that completed with an error status.
type CompletionError struct {
	Op         string // "send" or "recv"
	Completion Completion
}

func (e *CompletionError) Error() string {
	return fmt.Sprintf("ibv_poll_cq: %s work request %d completed with status %d (%s)",
		e.Op, e.Completion.WRID, e.Completion.Status, e.Completion.Text)
}
