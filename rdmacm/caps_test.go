//go:build linux && cgo && integration

package rdmacm

import "testing"

// TestCQAccountsTheQueueDepthsGiven makes QPs with queue depths Soft-RoCE
// rounds up (to a power of two, less one) and checks that the shared CQ
// counts the depths the device gave each QP, not those asked: a CQ counted
// from the asked ones could overflow, failing every QP on it.
func TestCQAccountsTheQueueDepthsGiven(t *testing.T) {
	ch := newChannel(t)
	qp := QPInit{MaxSendWR: 100, MaxRecvWR: 40, MaxSendSGE: 1, MaxRecvSGE: 1, SQSigAll: false}
	asked := int(qp.MaxSendWR + qp.MaxRecvWR)
	var pool *cqPool
	total := 0
	for range 5 {
		id := dial(t, ch, testAddr(t), freePort(), PSTCP, &qp)
		send, recv, counted, err := id.queueDepths()
		if err != nil {
			t.Fatal(err)
		}
		if send+recv <= asked {
			t.Fatalf("the device gave depths %d+%d for %d+%d asked: this test needs a device that rounds them up, as rxe does",
				send, recv, qp.MaxSendWR, qp.MaxRecvWR)
		}
		if counted != send+recv {
			t.Errorf("the CQ counts %d entries for a QP given %d+%d (asked %d)", counted, send, recv, asked)
		}
		total += counted
		pool = id.cqPool
		t.Logf("asked %d+%d, given %d+%d, counted %d", qp.MaxSendWR, qp.MaxRecvWR, send, recv, counted)
	}
	pool.mu.Lock()
	used := 0
	for _, cq := range pool.cqs {
		used += cq.used
	}
	pool.mu.Unlock()
	if used != total {
		t.Errorf("the pool's CQs count %d entries for QPs given %d", used, total)
	}
}
