// Small C helpers for the Go binding. Each one wraps a multi-step sequence
// that must observe a single errno, or a static inline function of
// librdmacm/libibverbs that cgo cannot take the address of.
#ifndef RDMAFORM_SHIM_H
#define RDMAFORM_SHIM_H

#include <stdint.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <infiniband/verbs.h>

#define RF_MAX_PRIVATE_DATA 256

// rf_event is a copy of an rdma_cm_event taken before the event is acked,
// so Go never reads memory librdmacm may free.
struct rf_event {
	int type;
	int status;
	uintptr_t id_key;     // context of event->id (the listener's, for CONNECT_REQUEST)
	uintptr_t listen_key; // context of event->listen_id, or 0
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	struct ibv_context *verbs; // event->id->verbs, copied before the ack
	uint8_t private_data[RF_MAX_PRIVATE_DATA];
	int private_data_len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint32_t qp_num;
	uint32_t qkey;
	struct ibv_ah_attr ah_attr; // a UD id's ESTABLISHED: the path to the remote QP
};

// rf_facts is what rdmaform reports about a live id.
struct rf_facts {
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
	uint16_t local_port;
	uint16_t remote_port;
	char device[64];
	uint8_t port_num;
	int has_qp;
	uint32_t qp_num;
	uint32_t dest_qp_num; // the peer's QP number, 0 when unknown
	int qp_state; // -1 when unknown
	int qp_type;
};

struct rf_device_attr {
	char name[64];
	uint64_t guid; // network byte order as returned by ibv_get_device_guid
	int node_type;
	int transport;
	int max_qp, max_qp_wr, max_sge, max_cqe, max_mr, max_pd, phys_port_cnt;
	int max_qp_rd_atom, max_qp_init_rd_atom;
	int max_srq, max_srq_wr, max_srq_sge;
};

struct rf_port_attr {
	int state;
	int active_mtu;
	int link_layer;
};

struct rf_completion {
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t byte_len;
	uint32_t qp_num; // routes a shared receive queue's completions
	// A UD receive's sender, for an address handle back to it (ud.c).
	uint32_t src_qp;
	uint32_t wc_flags;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

int rf_getaddrinfo(const char *node, const char *service, int use_hints,
		   int flags, int family, int qp_type, int port_space,
		   const char *src, int *src_failed, struct rdma_addrinfo **res);
int rf_addrinfo_type(struct rdma_addrinfo *ai, int *qp_type, int *port_space, int *family);

// rf_qp_caps are a QP's capabilities: asked for, then as the provider
// rounded them up.
struct rf_qp_caps {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
};

int rf_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq, int qp_type,
		 uintptr_t key, struct rf_qp_caps *caps, int sq_sig_all);
int rf_create_qp_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *send_cq,
		     struct ibv_cq *recv_cq, struct ibv_srq *srq, int qp_type,
		     uintptr_t key, struct rf_qp_caps *caps, int sq_sig_all);
int rf_query_caps(struct rdma_cm_id *id, struct rf_qp_caps *out);
int rf_pd_matches(struct ibv_pd *pd, struct rdma_cm_id *id);
void rf_set_context(struct rdma_cm_id *id, uintptr_t key);
int rf_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, uintptr_t key, int ps);
int rf_resolve(struct rdma_cm_id *id, struct rdma_addrinfo *ai, int timeout_ms);
int rf_has_route(struct rdma_addrinfo *ai);
int rf_set_route(struct rdma_cm_id *id, struct rdma_addrinfo *ai);

// rf_qp_attrs are what ibv_query_qp says a connected QP got.
struct rf_qp_attrs {
	int connected; // the QP is in RTR or later: the values are negotiated
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t traffic_class, is_global, timeout;
};

int rf_set_option(struct rdma_cm_id *id, int name, int value);
int rf_bind(struct rdma_cm_id *id, struct rdma_addrinfo *ai);
int rf_query_qp_attrs(struct rdma_cm_id *id, struct rf_qp_attrs *out);

int rf_set_nonblock(int fd);
int rf_next_event(struct rdma_event_channel *ch, struct rf_event *out);
int rf_connect_detached(struct rdma_cm_id *id, struct rdma_conn_param *p, struct ibv_qp **saved);
int rf_complete_connect(struct rdma_cm_id *id, struct ibv_qp *qp, int ib, int *step);
int rf_port_is_ib(struct rdma_cm_id *id);
void rf_destroy_qp(struct rdma_cm_id *id);

void rf_facts(struct rdma_cm_id *id, struct rf_facts *out);

struct ibv_context **rf_get_devices(int *n);
int rf_device_attr(struct ibv_context **list, int index, struct rf_device_attr *out);
int rf_port_attr(struct ibv_context **list, int index, int port, struct rf_port_attr *out);
struct ibv_pd *rf_alloc_pd(const char *device, struct ibv_context ***list);
int rf_max_cqe(struct ibv_context *ctx);

struct ibv_mr *rf_reg_msgs(struct rdma_cm_id *id, void *addr, size_t len);
int rf_post_recv(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr);
int rf_post_send(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr, int inline_data);
int rf_poll(struct ibv_cq *cq, struct rf_completion *out, int max);
int rf_arm(struct ibv_cq *cq);
int rf_take_cq_event(struct ibv_comp_channel *ch);

// rf_async_event is an ibv_async_event copied before its ack.
struct rf_async_event {
	int type;
	int port_num;
	uintptr_t qp_key;   // the QP's context (the id's key), for QP events
	struct ibv_cq *cq;  // for CQ events
};

int rf_file_id(int fd, uint64_t *dev, uint64_t *ino);
int rf_orphan_fd(int fd, uint64_t dev, uint64_t ino);

int rf_next_async_event(struct ibv_context *ctx, struct rf_async_event *out);

#include "ud.h"

#endif
