package state

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Every write to the state's keys is a transaction that also requires,
// while this manager holds the lock, that its lock key still exists with
// its own create revision (concurrency.Mutex.IsOwner). A holder whose lock
// was force-unlocked, or whose lease expired, has its writes refused: they
// would otherwise land among, or over, what the lock's new holder records.
// This is the fencing token of etcd's own lock guidance, checked by etcd
// in the same transaction as the write.

// LockLostError is a write etcd refused because this process no longer
// holds the state lock it took.
type LockLostError struct {
	Path string // the backend, as Describe
	What string // the write refused: "recording a change", "writing the state"
}

func (e *LockLostError) Error() string {
	return fmt.Sprintf("%s in %s was refused: this process lost the state lock (force-unlock removed it, or its lease expired when etcd did not hear from rdmaform for the lock's lifetime), and another command may hold it now. Its writes are refused so that they cannot overwrite what the lock's new holder records", e.What, e.Path)
}

// errStateChanged is a conditional write whose own comparisons (the
// state header's revision) failed, the lock still held.
var errStateChanged = errors.New("the state changed since it was read")

// fencedTxn commits ops if cmps hold and, when m is not nil (the lock is
// held), m still owns the lock. It returns a *LockLostError when the lock
// was lost, errStateChanged when cmps failed, or the request's error.
func (e *Etcd) fencedTxn(ctx context.Context, m *concurrency.Mutex, what string, cmps []clientv3.Cmp, ops ...clientv3.Op) (*clientv3.TxnResponse, error) {
	var orElse []clientv3.Op
	if m != nil {
		cmps = append(cmps[:len(cmps):len(cmps)], m.IsOwner())
		// On failure, a nested transaction says whether the lock is still
		// held, at the same revision: which of the comparisons failed.
		orElse = append(orElse, clientv3.OpTxn([]clientv3.Cmp{m.IsOwner()}, nil, nil))
	}
	tr, err := e.client.Txn(ctx).If(cmps...).Then(ops...).Else(orElse...).Commit()
	if err != nil {
		return nil, err
	}
	if tr.Succeeded {
		return tr, nil
	}
	if m != nil && len(tr.Responses) > 0 && !tr.Responses[0].GetResponseTxn().GetSucceeded() {
		return nil, &LockLostError{Path: e.Describe(), What: what}
	}
	return nil, errStateChanged
}

// writeError is a failed write said in words: a lost lock as it is
// (typed, for the CLI), anything else prefixed with what was written.
func (e *Etcd) writeError(doing string, err error) error {
	if ll := (*LockLostError)(nil); errors.As(err, &ll) {
		return ll
	}
	if errors.Is(err, rpctypes.ErrRequestTooLarge) || status.Code(err) == codes.ResourceExhausted {
		return fmt.Errorf("%s %s: etcd refused a request as too large: rdmaform writes at most %d bytes of values at once, and the cluster's --max-request-bytes is below that; raise it to at least %d (etcd's default, 1.5 MiB, is enough) (%v)", doing, e.Describe(), e.opts.ChunkSize, e.opts.ChunkSize+e.opts.ChunkSize/2, err)
	}
	return fmt.Errorf("%s %s: %w", doing, e.Describe(), e.notAnswering(err))
}
