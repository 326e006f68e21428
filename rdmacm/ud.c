//go:build linux && cgo

#include <errno.h>
#include <string.h>
#include "shim.h"

// rf_create_ah makes an address handle on the PD of the id's QP, from the
// path a UD id's ESTABLISHED carries (the SIDR reply's). NULL with errno.
struct ibv_ah *rf_create_ah(struct rdma_cm_id *id, struct ibv_ah_attr *attr)
{
	if (!id->qp) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_create_ah(id->qp->pd, attr);
}

// rf_ah_from_wc makes an address handle back to the sender of a UD
// receive, from its completion and the GRH the device wrote in front of
// the message (on RoCE v2 over IPv4: 20 unused bytes, then the IP header).
struct ibv_ah *rf_ah_from_wc(struct rdma_cm_id *id, const struct rf_completion *c, void *grh)
{
	struct ibv_wc wc;

	if (!id->qp) {
		errno = EINVAL;
		return NULL;
	}
	memset(&wc, 0, sizeof wc);
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_RECV;
	wc.byte_len = c->byte_len;
	wc.src_qp = c->src_qp;
	wc.wc_flags = c->wc_flags;
	wc.slid = c->slid;
	wc.sl = c->sl;
	wc.dlid_path_bits = c->dlid_path_bits;
	errno = 0;
	return ibv_create_ah_from_wc(id->qp->pd, &wc, grh, id->port_num);
}

// rf_post_ud_send posts a signalled send of len bytes at addr to QP qpn,
// Q_Key qkey, through the address handle ah. 0, or -1 with errno.
int rf_post_ud_send(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr,
		    struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int ret;

	if (!id->qp) {
		errno = EINVAL;
		return -1;
	}
	memset(&wr, 0, sizeof wr);
	sge.addr = (uintptr_t)addr;
	sge.length = len;
	sge.lkey = mr->lkey;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	ret = ibv_post_send(id->qp, &wr, &bad);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

// rf_qp_qkey reads the Q_Key of the id's UD QP (rdma_create_qp set it from
// the port space: RDMA_UDP_QKEY for UDP).
int rf_qp_qkey(struct rdma_cm_id *id, uint32_t *qkey)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int ret;

	if (!id->qp) {
		errno = EINVAL;
		return -1;
	}
	ret = ibv_query_qp(id->qp, &attr, IBV_QP_QKEY, &init);
	if (ret) {
		errno = ret;
		return -1;
	}
	*qkey = attr.qkey;
	return 0;
}
