package state

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// etcdRecorder writes each batch of changes as journal keys, in
// transactions conditional on the state header being unchanged (etcd makes
// each transaction durable before answering). Close folds the journal into
// the state; the write that does so deletes the journal keys atomically.
type etcdRecorder struct {
	*groupCommit
	e   *Etcd
	seq uint64
	// mutex is the lock held when the recorder opened (nil without one):
	// every journal write is fenced by it.
	mutex *concurrency.Mutex
}

// etcdMaxOps stays under etcd's default --max-txn-ops (128).
const etcdMaxOps = 100

// OpenRecorder writes the state (so a journal always has a base), then
// starts recording.
func (e *Etcd) OpenRecorder() (Recorder, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recording {
		return nil, errors.New("state: a Recorder is already open")
	}
	if e.cur == nil {
		e.cur = New()
	}
	if err := e.persistLocked(e.read == nil); err != nil {
		return nil, err
	}
	e.recording = true
	r := &etcdRecorder{e: e, mutex: e.mutex}
	r.groupCommit = newGroupCommit(r.flush)
	return r, nil
}

func (r *etcdRecorder) flush(batch []Change) error {
	e := r.e
	ctx, cancel := context.WithTimeout(context.Background(), e.wait(max(e.opts.DialTimeout*4, 20e9)))
	defer cancel()
	// Records go in transactions of at most etcdMaxOps keys and ChunkSize
	// bytes, under etcd's limits; a larger record in parts.
	var ops []clientv3.Op
	size := 0
	commit := func() error {
		if len(ops) == 0 {
			return nil
		}
		_, err := e.fencedTxn(ctx, r.mutex, "recording a change", []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(e.key("state")), "=", e.readRev)}, ops...)
		ops, size = nil, 0
		return err
	}
	for _, c := range batch {
		p, err := c.marshal()
		if err != nil {
			return err
		}
		r.seq++
		if len(p) > e.opts.ChunkSize {
			if p, err = e.writeParts(ctx, r.mutex, r.seq, p); err != nil {
				return r.failed(err)
			}
		}
		if len(ops) == etcdMaxOps || (len(ops) > 0 && size+len(p) > e.opts.ChunkSize) {
			if err := commit(); err != nil {
				return r.failed(err)
			}
		}
		ops = append(ops, clientv3.OpPut(e.key(fmt.Sprintf("journal/%020d", r.seq)), string(p)))
		size += len(p)
	}
	if err := commit(); err != nil {
		return r.failed(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.journaled = true
	for _, c := range batch {
		if err := c.Apply(e.cur); err != nil {
			return err
		}
	}
	return nil
}

// failed says why a journal write failed.
func (r *etcdRecorder) failed(err error) error {
	if errors.Is(err, errStateChanged) {
		return fmt.Errorf("recording to %s: the state changed while recording (another rdmaform run with -lock=false?); the change was not recorded", r.e.Describe())
	}
	return r.e.writeError("recording to", err)
}

// Close folds the journal into the state.
func (r *etcdRecorder) Close() error {
	err := r.stop()
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	r.e.recording = false
	if err != nil {
		return err
	}
	return r.e.persistLocked(false)
}
