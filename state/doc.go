// Package state records what rdmaform has created, so that plan can diff
// against it and apply can resume after an interruption.
//
// # Model
//
// A [State] is a lineage (a UUID fixed when the state is first created), a
// serial (incremented each time persisted content changes), the rdmaform
// version that last wrote it, the managed [Object]s keyed by address, and the
// root module's [Output]s. Its on-disk form is a JSON document (format
// [FormatVersion]) written by [Encode] and read by [Decode]; a document from a
// newer format is refused with a message saying so.
//
// # Managers
//
// Storage is reached through small interfaces composed into [Full] (see
// statemgr.go): [Reader] (State), [Writer] (WriteState), [Refresher]
// (RefreshState), [Persister] (PersistState), [Locker] (Lock, Unlock) and
// [Journaler] (OpenRecorder). Two implementations exist: [Filesystem], the
// local rdmaform.rdmastate file, and [Etcd], a shared etcd cluster (with
// TLS client certificates, and a username and password when the cluster
// has authentication enabled: etcd's refusal is an [AuthError] naming the
// endpoint and the user, never the password; what it writes, the lock
// that fences every write, and the compaction its cluster needs are in
// docs/etcd.md). A
// state describes one host's objects (an agent's live on its host): each
// object's [Facts] name it (AgentHost), and the commands that reach the
// agent refuse a state recorded on another host.
//
// Typical use by a command that modifies state:
//
//	m := state.NewFilesystem(state.LocalOptions{Path: "rdmaform.rdmastate"})
//	// or: m, err := state.NewEtcd(ctx, state.EtcdOptions{Endpoints: ..., Prefix: ..., Username: ..., Password: ...})
//	// (the root package's openStateManager picks one from the configuration)
//	id, err := state.LockWithTimeout(ctx, m, state.NewLockInfo("OperationTypeApply"), 30*time.Second)
//	if err != nil { ... } // a *LockError names the holder
//	defer m.Unlock(id)
//	if err := m.RefreshState(); err != nil { ... } // names the file and what is wrong
//	s := m.State() // a copy; nil when no state exists yet
//	if s == nil { s = state.New() }
//	s.SetObject(obj); s.RemoveObject(addr); s.SetOutput(name, out)
//	m.WriteState(s)
//	err = m.PersistState() // durable on return; serial+1 if content changed
//
// Apply records each completed change durably, one by one, through a
// [Recorder]: Record returns only once the change is durable. Concurrent
// callers share one fsync (group commit), so apply should call Record from
// its parallel workers rather than funnel completions through one goroutine.
//
//	rec, err := m.OpenRecorder()
//	...
//	err = rec.Record(state.PutObject(obj)) // durable when it returns nil
//	...
//	err = rec.Record(state.PutOutput("addr", out))
//	err = rec.Close() // folds the journal into the state file
//
// Use either WriteState/PersistState or a Recorder, not both at once. After
// a crash the journal is replayed by the next RefreshState, and folded into
// the state by the next PersistState or OpenRecorder.
//
// Every record of the local journal carries its own length and CRC-32C,
// so replay keeps each record that matches its checksum, wherever damage
// is: a damaged record is skipped and the records after it replayed; a
// damaged header (it repeats the state file's lineage and serial) costs
// no record, as they replay onto the state file. A last write cut short
// (a kill, a crash) is told apart from damage: its first missing byte
// starts a sector, or the file ends inside it. Either way Notes says what
// was dropped, where, and how much, and a damaged journal is copied to
// PATH.journal.damaged. FuzzJournal checks the reader on arbitrary bytes.
//
// Files are replaced through a temporary file (.NAME.tmp-DIGITS) that is
// flock'd until renamed; taking the lock removes those a killed writer
// left (their flock released with the writer), never one a live writer
// holds.
//
// A single goroutine calling Record in a loop pays one fdatasync per
// change (about 0.1 ms on a good SSD, so 10,000 changes take about 1-1.5 s);
// ten concurrent callers, or Submit with ten changes in flight, share
// fdatasyncs and take a fraction of that (see BenchmarkRecord10k).
package state
