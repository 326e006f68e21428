package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// etcd refuses a request over its --max-request-bytes (1.5 MiB by
// default), so a journal record larger than ChunkSize (a large output, say)
// is written in parts, as the state is: each part under
// journal-parts/SEQ/NNNNNN in its own transaction, then journal/SEQ, in
// the same transaction as the records around it, holds only a reference
// to them. The record exists once its reference does; parts a crashed
// writer left without one are removed with the journal when the state is
// next written.

// journalPartsRef marks a journal value that refers to parts: a change
// record is a JSON object and never starts with it.
const journalPartsRef = "parts "

type journalParts struct {
	Parts  int    `json:"parts"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// writeParts writes record p of journal entry seq in parts of ChunkSize
// and returns the reference to put at journal/SEQ.
func (e *Etcd) writeParts(ctx context.Context, m *concurrency.Mutex, seq uint64, p []byte) ([]byte, error) {
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(e.key("state")), "=", e.readRev)}
	n := 0
	for off := 0; off < len(p); off += e.opts.ChunkSize {
		part := p[off:min(off+e.opts.ChunkSize, len(p))]
		if _, err := e.fencedTxn(ctx, m, "recording a change", cmps, clientv3.OpPut(e.partKey(seq, n), string(part))); err != nil {
			return nil, err
		}
		n++
	}
	sum := sha256.Sum256(p)
	ref, _ := json.Marshal(journalParts{Parts: n, Size: len(p), SHA256: hex.EncodeToString(sum[:])})
	return append([]byte(journalPartsRef), ref...), nil
}

func (e *Etcd) partKey(seq uint64, n int) string {
	return e.key(fmt.Sprintf("journal-parts/%020d/%06d", seq, n))
}

// journalRecord returns the record a journal key holds at revision rev,
// joining its parts when it refers to them.
func (e *Etcd) journalRecord(ctx context.Context, kv journalKV, rev int64) ([]byte, error) {
	ref, ok := bytes.CutPrefix(kv.Value, []byte(journalPartsRef))
	if !ok {
		return kv.Value, nil
	}
	var jp journalParts
	if err := json.Unmarshal(ref, &jp); err != nil {
		return nil, fmt.Errorf("a reference to the record's parts that does not decode: %v", err)
	}
	seq := strings.TrimPrefix(string(kv.Key), e.key("journal/"))
	r, err := e.client.Get(ctx, e.key("journal-parts/"+seq+"/"), clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		return nil, fmt.Errorf("reading the record's parts: %w", e.notAnswering(err))
	}
	if len(r.Kvs) != jp.Parts {
		return nil, fmt.Errorf("the record names %d parts, but %d exist", jp.Parts, len(r.Kvs))
	}
	data := make([]byte, 0, jp.Size)
	for _, p := range r.Kvs {
		data = append(data, p.Value...)
	}
	if sum := sha256.Sum256(data); len(data) != jp.Size || hex.EncodeToString(sum[:]) != jp.SHA256 {
		return nil, fmt.Errorf("its parts do not match the record's size and checksum")
	}
	return data, nil
}

// journalKV is the key and value of a journal entry.
type journalKV struct{ Key, Value []byte }
