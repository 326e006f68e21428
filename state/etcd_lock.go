package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// The etcd lock is a concurrency.Mutex under PREFIX/lock on a session
// lease of LockTTL, kept alive while the holder runs; if the holder dies
// the lease expires and the lock with it. The holder's LockInfo is put at
// PREFIX/lock-info on the same lease.

// LockLost is closed once the lock this manager took is lost while held:
// its lease expired (etcd heard nothing from this process for LockTTL) or
// was revoked (force-unlock). Nil when no lock is held; Unlock does not
// close it.
func (e *Etcd) LockLost() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lost
}

// Lock takes the lock without waiting.
func (e *Etcd) Lock(info *LockInfo) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mutex != nil {
		return "", &LockError{Info: nil, Err: fmt.Errorf("%s is already locked by this process", e.Describe())}
	}
	ctx, cancel := e.ctx()
	defer cancel()
	// The lease is granted within the call's timeout (an unreachable
	// cluster fails it rather than blocking), then kept alive by the
	// session for as long as the lock is held.
	lease, err := e.client.Grant(ctx, int64(max(e.opts.LockTTL/time.Second, 1)))
	if err != nil {
		return "", explainAuth(fmt.Errorf("creating an etcd lease on %s: %w", e.Describe(), e.notAnswering(err)), e.opts)
	}
	sess, err := concurrency.NewSession(e.client, concurrency.WithLease(lease.ID))
	if err != nil {
		return "", fmt.Errorf("creating an etcd lease on %s: %w", e.Describe(), e.notAnswering(err))
	}
	m := concurrency.NewMutex(sess, e.key("lock"))
	// While the mutex is held but the info absent, the holder is between
	// taking the mutex and writing its info, or releasing both: look
	// again rather than report an unknown holder.
	deadline := time.Now().Add(holderInfoWait)
	for {
		err := m.TryLock(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, concurrency.ErrLocked) {
			sess.Close()
			return "", explainAuth(fmt.Errorf("locking %s: %w", e.Describe(), e.notAnswering(err)), e.opts)
		}
		li, _ := e.readLockInfo() // unread, it is the unknown holder below
		if li == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		sess.Close()
		if li == nil {
			li = e.unknownHolder()
		}
		return "", &LockError{Info: li, Err: fmt.Errorf("%s is locked", e.Describe()), Note: e.lockNote(li)}
	}
	li := *info
	li.ID, li.Path = newLockID(), e.Describe()
	tr, err := e.client.Txn(ctx).If(m.IsOwner()).
		Then(clientv3.OpPut(e.key("lock-info"), string(li.marshal()), clientv3.WithLease(sess.Lease()))).Commit()
	if err == nil && !tr.Succeeded {
		err = errors.New("lost the lock while writing its info")
	}
	if err != nil {
		m.Unlock(ctx)
		sess.Close()
		return "", fmt.Errorf("locking %s: %w", e.Describe(), e.notAnswering(err))
	}
	e.session, e.mutex, e.lockID = sess, m, li.ID
	e.lost, e.stopWatchingLock = watchLock(e.client, sess, m.Key(), tr.Header.Revision)
	return li.ID, nil
}

// watchLock returns a channel closed once the lock at key is lost while
// held: its key deleted (the lease revoked by force-unlock, or expired) or
// the session ended. A watch sees a revocation at once, where the
// session's keep-alive would notice only at its next renewal. stop ends
// the watch (on Unlock) without closing the channel.
func watchLock(client *clientv3.Client, sess *concurrency.Session, key string, rev int64) (<-chan struct{}, func()) {
	lost := make(chan struct{})
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		wch := client.Watch(ctx, key, clientv3.WithRev(rev+1), clientv3.WithFilterPut())
		for {
			select {
			case <-ctx.Done():
				return
			case <-sess.Done():
			case wr, ok := <-wch:
				if ok && wr.Err() == nil && len(wr.Events) == 0 {
					continue // progress notifications
				}
				if !ok && ctx.Err() != nil {
					return
				}
			}
			if ctx.Err() == nil {
				close(lost)
			}
			return
		}
	}()
	return lost, stop
}

// Unlock releases the lock taken under id.
func (e *Etcd) Unlock(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mutex == nil {
		return fmt.Errorf("%s is not locked by this process", e.Describe())
	}
	if id != e.lockID {
		return fmt.Errorf("lock ID %q does not match the held lock %q", id, e.lockID)
	}
	ctx, cancel := e.ctx()
	defer cancel()
	_, err := e.client.Txn(ctx).If(e.mutex.IsOwner()).Then(clientv3.OpDelete(e.key("lock-info"))).Commit()
	if uerr := e.mutex.Unlock(ctx); err == nil {
		err = uerr
	}
	e.stopWatchingLock()
	if e.unanswered.Load() {
		// Revoking would wait up to the lease's life for an answer;
		// the lease expires by itself, as the error says.
		e.session.Orphan()
	} else {
		e.session.Close() // revokes the lease
	}
	e.session, e.mutex, e.lockID, e.lost = nil, nil, "", nil
	if err != nil {
		return &UnlockError{Err: e.notAnswering(err), ExpiresIn: e.opts.LockTTL}
	}
	return nil
}

// LockHolder returns the holder's info, or nil when the lock is free.
func (e *Etcd) LockHolder() (*LockInfo, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	owner, err := e.client.Get(ctx, e.key("lock/"), clientv3.WithFirstCreate()...)
	if err != nil {
		return nil, explainAuth(fmt.Errorf("reading the lock in %s: %w", e.Describe(), e.notAnswering(err)), e.opts)
	}
	if len(owner.Kvs) == 0 {
		return nil, nil
	}
	return e.waitLockInfo(), nil
}

// ForceUnlockable returns the info of the lock held under id, or why
// ForceUnlock(id) would refuse: no lock, or another ID.
func (e *Etcd) ForceUnlockable(id string) (*LockInfo, error) {
	li, err := e.readLockInfo()
	if err != nil {
		return nil, err
	}
	if li == nil {
		return nil, fmt.Errorf("%s is not locked", e.Describe())
	}
	if li.ID != id {
		return nil, fmt.Errorf("lock ID %q does not match the current lock:\n%s", id, li)
	}
	return li, nil
}

// ForceUnlock revokes the lease of the lock held under id, releasing the
// lock and its info at once.
func (e *Etcd) ForceUnlock(id string) error {
	if _, err := e.ForceUnlockable(id); err != nil {
		return err
	}
	ctx, cancel := e.ctx()
	defer cancel()
	ir, err := e.client.Get(ctx, e.key("lock-info"))
	if err != nil {
		return e.notAnswering(err)
	}
	if len(ir.Kvs) == 0 {
		return nil // released meanwhile
	}
	if lease := clientv3.LeaseID(ir.Kvs[0].Lease); lease != clientv3.NoLease {
		if _, err := e.client.Revoke(ctx, lease); err != nil {
			return fmt.Errorf("revoking the lock's lease: %w", e.notAnswering(err))
		}
	}
	_, err = e.client.Delete(ctx, e.key("lock-info"))
	return e.notAnswering(err)
}

// readLockInfo returns the holder's info, nil when there is none (or it
// does not decode), or why etcd could not be read: a holder unseen is not
// a lock free.
func (e *Etcd) readLockInfo() (*LockInfo, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	r, err := e.client.Get(ctx, e.key("lock-info"))
	if err != nil {
		return nil, explainAuth(fmt.Errorf("reading the lock's holder in %s: %w", e.Describe(), e.notAnswering(err)), e.opts)
	}
	if len(r.Kvs) == 0 {
		return nil, nil
	}
	li, err := unmarshalLockInfo(r.Kvs[0].Value, e.key("lock-info"))
	if err != nil {
		return nil, nil
	}
	return li, nil
}

// waitLockInfo reads the holder's info, allowing it a moment to write it
// after taking the mutex.
func (e *Etcd) waitLockInfo() *LockInfo {
	for deadline := time.Now().Add(holderInfoWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if li, _ := e.readLockInfo(); li != nil {
			return li
		}
	}
	return e.unknownHolder()
}

func (e *Etcd) unknownHolder() *LockInfo {
	return &LockInfo{ID: "(unknown: the holder has not written " + e.key("lock-info") + ")", Path: e.Describe()}
}

// lockNote says how a lock whose holder died goes away: its lease expires
// LockTTL after the holder's last keep-alive, so waiting that long (with
// -lock-timeout) is the safe way past it, while force-unlock is only for a
// holder known to be gone. A holder on this host that no longer runs is
// said to be gone.
func (e *Etcd) lockNote(li *LockInfo) string {
	ttl := e.opts.LockTTL
	note := fmt.Sprintf("An etcd lock lives while its holder runs: one whose holder died expires by itself %s later (-lock-timeout=%s waits for that); force-unlock removes it at once, but only use it once you are sure the holder has stopped.", ttl, ttl+5*time.Second)
	if host, _ := os.Hostname(); li.Known() && li.Host == host && li.PID > 0 && syscall.Kill(li.PID, 0) == syscall.ESRCH {
		note = fmt.Sprintf("Its holder, process %d on this host, no longer runs: the lock expires within %s.\n", li.PID, ttl) + note
	}
	return note
}
