package state

import (
	"context"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A writer that crashed, or whose request timed out, between putting its
// chunks and committing the header leaves a generation of chunks no header
// names. A save under the lock removes such orphans in its own
// transaction: no other locked writer can be between its chunks and its
// header then, and one running with -lock=false whose chunks were removed
// has its header refused (see firstChunkExists), never a header without
// its chunks.

// orphanChunksMax bounds the generations one save removes, so that its
// transaction stays under etcd's --max-txn-ops; the next save removes more.
const orphanChunksMax = 50

// orphanChunkOps returns the deletions of every chunk generation but
// those in keep (the one being written and the one the header names, soon
// the backup).
func (e *Etcd) orphanChunkOps(ctx context.Context, keep ...string) ([]clientv3.Op, error) {
	dir := e.key("state-chunks/")
	r, err := e.client.Get(ctx, dir, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, e.notAnswering(err)
	}
	seen := map[string]bool{}
	for _, g := range keep {
		seen[g] = true
	}
	var ops []clientv3.Op
	for _, kv := range r.Kvs {
		gen, _, _ := strings.Cut(strings.TrimPrefix(string(kv.Key), dir), "/")
		if seen[gen] || len(ops) == orphanChunksMax {
			continue
		}
		seen[gen] = true
		ops = append(ops, clientv3.OpDelete(dir+gen+"/", clientv3.WithPrefix()))
	}
	return ops, nil
}

// firstChunkExists is the comparison a header's commit makes on its own
// chunks: removing a generation is one deletion of its prefix, and its
// first chunk is put before the others, so while the first exists none of
// them was removed.
func (e *Etcd) firstChunkExists(gen string) clientv3.Cmp {
	return clientv3.Compare(clientv3.Version(e.key(fmt.Sprintf("state-chunks/%s/%06d", gen, 0))), ">", 0)
}
