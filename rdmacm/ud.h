// UD helpers: address handles and sends to a given QP (ud.c).
#ifndef RDMAFORM_UD_H
#define RDMAFORM_UD_H

struct rf_completion;

struct ibv_ah *rf_create_ah(struct rdma_cm_id *id, struct ibv_ah_attr *attr);
struct ibv_ah *rf_ah_from_wc(struct rdma_cm_id *id, const struct rf_completion *c, void *grh);
int rf_post_ud_send(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr,
		    struct ibv_ah *ah, uint32_t qpn, uint32_t qkey);
int rf_qp_qkey(struct rdma_cm_id *id, uint32_t *qkey);

#endif
