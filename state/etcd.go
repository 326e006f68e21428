package state

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// EtcdOptions configure the etcd backend.
type EtcdOptions struct {
	Endpoints []string
	// Prefix is prepended to every key; "rdmaform/" when empty. A prefix
	// not ending in "/" gets one.
	Prefix string
	// TLS files; all empty for plain HTTP.
	CAFile, CertFile, KeyFile string
	// Username and Password authenticate to a cluster with authentication
	// enabled (etcdctl auth enable); both empty for none. The password is
	// never part of an error or of Describe.
	Username, Password string
	// DialTimeout bounds connecting and each request; 5s when zero.
	DialTimeout time.Duration
	// LockTTL is the lease behind the lock: a holder that dies releases
	// it after this long. 15s when zero.
	LockTTL time.Duration
	// ChunkSize is the largest value written; the state is split into
	// chunks of this size. 1 MiB (under etcd's 1.5 MiB request limit)
	// when zero.
	ChunkSize int
}

// Etcd is the etcd backend. Under Prefix it keeps:
//
//	state                 header: {gen, chunks, size, sha256, serial, lineage}
//	state-chunks/GEN/NNNNNN  the state document, in chunks
//	state.backup          the previous header (its chunks are kept too)
//	journal/NNNNNNNNNNNNNNNNNNNN  changes recorded since the state was written
//	journal-parts/N.../NNNNNN  a record larger than a chunk, in parts
//	lock/...              the concurrency.Mutex keys
//	lock-info             the holder's LockInfo, on the lock's lease
//
// A write puts the new chunks first, then in one transaction, conditional
// on the header's revision being the one read, replaces the header, moves
// the old header to state.backup, deletes the chunks two generations old
// and clears the journal. A crashed writer leaves at most unreferenced
// chunks, removed by the next save under the lock (etcd_chunks.go).
type Etcd struct {
	opts   EtcdOptions
	prefix string
	client *clientv3.Client

	mu        sync.Mutex
	read      *State
	readHdr   []byte // raw header read, moved to state.backup on write
	readRev   int64  // ModRevision of the header when read; 0 if none
	cur       *State
	recording bool
	// journaled: journal keys exist under the prefix (read, or written
	// by the recorder) that the state does not hold yet: the next
	// persist must delete them even when the content is the same (an
	// apply whose only create failed), or the next recorder's keys,
	// numbered from 1, would be followed by stale ones on replay.
	journaled bool

	session *concurrency.Session
	mutex   *concurrency.Mutex
	lockID  string
	// lost is closed when the lock held is lost (see LockLost);
	// stopWatchingLock ends its watch.
	lost             <-chan struct{}
	stopWatchingLock func()

	// unanswered: the last request found etcd not answering (see
	// watchAnswers); answered: a request was answered once.
	unanswered, answered atomic.Bool
	// tls is the client's TLS configuration, nil without TLS files.
	tls *tls.Config
}

var _ Full = (*Etcd)(nil)

type etcdHeader struct {
	Gen     string `json:"gen"`
	Chunks  int    `json:"chunks"`
	Size    int    `json:"size"`
	SHA256  string `json:"sha256"`
	Serial  uint64 `json:"serial"`
	Lineage string `json:"lineage"`
}

// NewEtcd connects to the cluster in opts.
func NewEtcd(ctx context.Context, opts EtcdOptions) (*Etcd, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New(`etcd backend: "endpoints" is empty`)
	}
	opts.Prefix = normalPrefix(opts.Prefix)
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	if opts.LockTTL == 0 {
		opts.LockTTL = 15 * time.Second
	}
	if opts.ChunkSize == 0 {
		opts.ChunkSize = 1 << 20
	}
	e := &Etcd{opts: opts, prefix: opts.Prefix}
	cfg := clientv3.Config{Endpoints: opts.Endpoints, DialTimeout: opts.DialTimeout, Context: ctx, Logger: zap.NewNop(),
		Username: opts.Username, Password: opts.Password,
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(e.watchAnswers)}}
	if opts.CAFile != "" || opts.CertFile != "" || opts.KeyFile != "" {
		tlsCfg, err := transport.TLSInfo{TrustedCAFile: opts.CAFile, CertFile: opts.CertFile, KeyFile: opts.KeyFile}.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("etcd backend TLS: %w", err)
		}
		cfg.TLS, e.tls = tlsCfg, tlsCfg
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		// The client authenticates as it connects.
		return nil, explainAuth(fmt.Errorf("connecting to etcd at %s: %w", strings.Join(opts.Endpoints, ","), e.notAnswering(err)), opts)
	}
	e.client = c
	return e, nil
}

// Describe names the cluster and prefix.
func (e *Etcd) Describe() string {
	return fmt.Sprintf("etcd %s prefix %q", strings.Join(e.opts.Endpoints, ","), e.prefix)
}

// Close closes the connection; a held lock expires after LockTTL.
func (e *Etcd) Close() error { return e.client.Close() }

func (e *Etcd) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), e.wait(max(e.opts.DialTimeout, 5*time.Second)))
}

func (e *Etcd) key(k string) string { return e.prefix + k }

// State returns a copy of the snapshot, or nil if there is none.
func (e *Etcd) State() *State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur.DeepCopy()
}

// WriteState replaces the snapshot in memory.
func (e *Etcd) WriteState(s *State) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recording {
		return errors.New("state: WriteState while a Recorder is open; record changes through it")
	}
	e.cur = s.DeepCopy()
	return nil
}

// RefreshState reads the state and any journal at one revision.
func (e *Etcd) RefreshState() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recording {
		return errors.New("state: RefreshState while a Recorder is open")
	}
	ctx, cancel := e.ctx()
	defer cancel()
	hr, err := e.client.Get(ctx, e.key("state"))
	if err != nil {
		return explainAuth(fmt.Errorf("reading state from %s: %w", e.Describe(), e.notAnswering(err)), e.opts)
	}
	rev := hr.Header.Revision
	var read *State
	var hdrBytes []byte
	var modRev int64
	if len(hr.Kvs) > 0 {
		hdrBytes, modRev = hr.Kvs[0].Value, hr.Kvs[0].ModRevision
		if read, err = e.readChunks(ctx, hdrBytes, rev); err != nil {
			return err
		}
	}
	cur := read.DeepCopy()
	jr, err := e.client.Get(ctx, e.key("journal/"), clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		return fmt.Errorf("reading the journal from %s: %w", e.Describe(), e.notAnswering(err))
	}
	for _, kv := range jr.Kvs {
		if cur == nil {
			cur = New()
		}
		rec, err := e.journalRecord(ctx, journalKV{kv.Key, kv.Value}, rev)
		var c Change
		if err == nil {
			c, err = unmarshalChange(rec)
		}
		if err == nil {
			err = c.Apply(cur)
		}
		if err != nil {
			return fmt.Errorf("etcd key %s: %v", kv.Key, err)
		}
	}
	e.read, e.readHdr, e.readRev, e.cur = read, hdrBytes, modRev, cur
	e.journaled = len(jr.Kvs) > 0
	return nil
}

func (e *Etcd) readChunks(ctx context.Context, hdrBytes []byte, rev int64) (*State, error) {
	src := "etcd key " + e.key("state")
	var h etcdHeader
	if err := json.Unmarshal(hdrBytes, &h); err != nil || h.Gen == "" {
		return nil, &DecodeError{Source: src, Msg: "not an rdmaform state header"}
	}
	cr, err := e.client.Get(ctx, e.key("state-chunks/"+h.Gen+"/"), clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		return nil, fmt.Errorf("reading state from %s: %w", e.Describe(), e.notAnswering(err))
	}
	if len(cr.Kvs) != h.Chunks {
		return nil, &DecodeError{Source: src, Msg: fmt.Sprintf("the header names %d chunks of generation %s, but %d exist", h.Chunks, h.Gen, len(cr.Kvs))}
	}
	data := make([]byte, 0, h.Size)
	for _, kv := range cr.Kvs {
		data = append(data, kv.Value...)
	}
	sum := sha256.Sum256(data)
	if len(data) != h.Size || hex.EncodeToString(sum[:]) != h.SHA256 {
		return nil, &DecodeError{Source: src, Msg: "the chunks do not match the header's size and checksum"}
	}
	return Decode(data, src)
}

// PersistState writes the snapshot if its content changed, conditional on
// the header not having changed since it was read.
func (e *Etcd) PersistState() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recording {
		return errors.New("state: PersistState while a Recorder is open; its Close persists")
	}
	return e.persistLocked(false)
}

func (e *Etcd) persistLocked(force bool) error {
	if e.cur == nil {
		return nil
	}
	if !force && e.read != nil && e.read.Lineage == e.cur.Lineage && SameContent(e.read, e.cur) {
		return e.dropJournalLocked()
	}
	next := e.cur.DeepCopy()
	next.RdmaformVersion = RdmaformVersion
	next.Serial = max(next.Serial, 1)
	if e.read != nil {
		next.Serial = max(next.Serial, e.read.Serial+1)
	}
	data, err := Encode(next)
	if err != nil {
		return err
	}
	ctx, cancel := e.ctx()
	defer cancel()
	gen := uuid.NewString()
	chunks := 0
	for off := 0; off < len(data) || off == 0; off += e.opts.ChunkSize {
		end := min(off+e.opts.ChunkSize, len(data))
		if _, err := e.fencedTxn(ctx, e.mutex, "writing the state", nil, clientv3.OpPut(e.key(fmt.Sprintf("state-chunks/%s/%06d", gen, chunks)), string(data[off:end]))); err != nil {
			e.client.Delete(ctx, e.key("state-chunks/"+gen+"/"), clientv3.WithPrefix())
			return e.writeError("writing state to", err)
		}
		chunks++
		if end == len(data) {
			break
		}
	}
	sum := sha256.Sum256(data)
	hdr, _ := json.Marshal(etcdHeader{Gen: gen, Chunks: chunks, Size: len(data), SHA256: hex.EncodeToString(sum[:]), Serial: next.Serial, Lineage: next.Lineage})
	ops := []clientv3.Op{
		clientv3.OpPut(e.key("state"), string(hdr)),
		clientv3.OpDelete(e.key("journal/"), clientv3.WithPrefix()),
		clientv3.OpDelete(e.key("journal-parts/"), clientv3.WithPrefix()),
	}
	// Keep the previous version as the backup; drop the one before it,
	// and under the lock any generation no header names.
	var cur etcdHeader
	if e.readHdr != nil {
		json.Unmarshal(e.readHdr, &cur)
		ops = append(ops, clientv3.OpPut(e.key("state.backup"), string(e.readHdr)))
	}
	if e.mutex != nil {
		orphans, err := e.orphanChunkOps(ctx, gen, cur.Gen)
		if err != nil {
			return fmt.Errorf("writing state to %s: %w", e.Describe(), e.notAnswering(err))
		}
		ops = append(ops, orphans...)
	} else {
		br, err := e.client.Get(ctx, e.key("state.backup"))
		if err != nil {
			return fmt.Errorf("writing state to %s: %w", e.Describe(), e.notAnswering(err))
		}
		var old etcdHeader
		if len(br.Kvs) > 0 && json.Unmarshal(br.Kvs[0].Value, &old) == nil && old.Gen != "" && old.Gen != cur.Gen {
			ops = append(ops, clientv3.OpDelete(e.key("state-chunks/"+old.Gen+"/"), clientv3.WithPrefix()))
		}
	}
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(e.key("state")), "=", e.readRev), e.firstChunkExists(gen)}
	tr, err := e.fencedTxn(ctx, e.mutex, "writing the state", cmps, ops...)
	if err != nil {
		e.client.Delete(ctx, e.key("state-chunks/"+gen+"/"), clientv3.WithPrefix())
		if errors.Is(err, errStateChanged) {
			return fmt.Errorf("the state in %s changed since rdmaform read it (another rdmaform run with -lock=false?); refusing to overwrite it. Nothing was written; run the command again", e.Describe())
		}
		return e.writeError("writing state to", err)
	}
	e.read, e.readHdr, e.readRev = next, hdr, tr.Header.Revision
	e.cur.Serial, e.cur.RdmaformVersion = next.Serial, next.RdmaformVersion
	e.journaled = false
	return nil
}

// dropJournalLocked deletes the journal keys when the state already holds
// what they say (their changes cancelled out), in a transaction
// conditional on the state being the one read.
func (e *Etcd) dropJournalLocked() error {
	if !e.journaled {
		return nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	_, err := e.fencedTxn(ctx, e.mutex, "clearing the journal", []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(e.key("state")), "=", e.readRev)},
		clientv3.OpDelete(e.key("journal/"), clientv3.WithPrefix()), clientv3.OpDelete(e.key("journal-parts/"), clientv3.WithPrefix()))
	if errors.Is(err, errStateChanged) {
		return fmt.Errorf("clearing the journal in %s: the state changed since rdmaform read it (another rdmaform run with -lock=false?); its journal was left as it is", e.Describe())
	}
	if err != nil {
		return e.writeError("clearing the journal in", err)
	}
	e.journaled = false
	return nil
}
