//go:build linux && cgo

#define _GNU_SOURCE // dup3
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shim.h"

// rf_getaddrinfo is rdma_getaddrinfo with its hints passed as values. A
// source address (src, may be NULL) is resolved first, passively, and given
// in the hints' ai_src_addr, as rdma_getaddrinfo(3) describes: the active
// side then binds to it when it resolves the destination.
int rf_getaddrinfo(const char *node, const char *service, int use_hints,
		   int flags, int family, int qp_type, int port_space,
		   const char *src, int *src_failed, struct rdma_addrinfo **res)
{
	struct rdma_addrinfo hints, src_hints, *src_ai = NULL;
	int ret;

	if (!use_hints)
		return rdma_getaddrinfo(node, service, NULL, res);
	memset(&hints, 0, sizeof hints);
	hints.ai_flags = flags;
	hints.ai_family = family;
	hints.ai_qp_type = qp_type;
	hints.ai_port_space = port_space;
	if (src) {
		memset(&src_hints, 0, sizeof src_hints);
		src_hints.ai_flags = RAI_PASSIVE;
		src_hints.ai_family = family;
		src_hints.ai_port_space = port_space;
		ret = rdma_getaddrinfo(src, NULL, &src_hints, &src_ai);
		if (ret) {
			*src_failed = 1;
			return ret;
		}
		hints.ai_src_addr = src_ai->ai_src_addr;
		hints.ai_src_len = src_ai->ai_src_len;
		if (!hints.ai_family)
			hints.ai_family = src_ai->ai_family;
	}
	ret = rdma_getaddrinfo(node, service, &hints, res);
	if (src_ai) {
		int saved = errno;
		rdma_freeaddrinfo(src_ai);
		errno = saved;
	}
	return ret;
}

int rf_addrinfo_type(struct rdma_addrinfo *ai, int *qp_type, int *port_space, int *family)
{
	*qp_type = ai->ai_qp_type;
	*port_space = ai->ai_port_space;
	*family = ai->ai_family;
	return 0;
}

// rf_create_qp creates an id's QP on a completion queue the binding shares
// among many QPs, instead of the two CQs and two completion channels
// librdmacm would create for each.
int rf_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq, int qp_type,
		 uintptr_t key, struct rf_qp_caps *caps, int sq_sig_all)
{
	return rf_create_qp_srq(id, pd, cq, cq, NULL, qp_type, key, caps, sq_sig_all);
}

// rf_create_qp_srq is rf_create_qp with the receives on a shared receive
// queue (srq, NULL for none), whose completions come on recv_cq.
int rf_create_qp_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *send_cq,
		     struct ibv_cq *recv_cq, struct ibv_srq *srq, int qp_type,
		     uintptr_t key, struct rf_qp_caps *caps, int sq_sig_all)
{
	struct ibv_qp_init_attr attr;
	int ret;

	memset(&attr, 0, sizeof attr);
	attr.qp_context = (void *)key; // names the id in the QP's async events
	attr.qp_type = qp_type;
	attr.send_cq = send_cq;
	attr.recv_cq = recv_cq;
	attr.srq = srq;
	attr.cap.max_send_wr = caps->max_send_wr;
	attr.cap.max_recv_wr = caps->max_recv_wr;
	attr.cap.max_send_sge = caps->max_send_sge;
	attr.cap.max_recv_sge = caps->max_recv_sge;
	attr.cap.max_inline_data = caps->max_inline_data;
	attr.sq_sig_all = sq_sig_all;
	ret = rdma_create_qp(id, pd, &attr);
	if (ret == 0) {
		// The device may give more than asked, and the CQ must have room
		// for what it gave. rdma_create_qp returns the caps as the
		// provider reports them, but rxe reports those asked while its
		// queues are rounded up: ibv_query_qp says what they are.
		struct rf_qp_caps q;

		caps->max_send_wr = attr.cap.max_send_wr;
		caps->max_recv_wr = attr.cap.max_recv_wr;
		caps->max_send_sge = attr.cap.max_send_sge;
		caps->max_recv_sge = attr.cap.max_recv_sge;
		caps->max_inline_data = attr.cap.max_inline_data;
		if (rf_query_caps(id, &q) == 0) {
			if (q.max_send_wr > caps->max_send_wr)
				caps->max_send_wr = q.max_send_wr;
			if (q.max_recv_wr > caps->max_recv_wr)
				caps->max_recv_wr = q.max_recv_wr;
		}
		errno = 0;
	}
	return ret;
}

// rf_query_caps reads the caps of the id's QP as the device has them.
int rf_query_caps(struct rdma_cm_id *id, struct rf_qp_caps *out)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int ret;

	if (!id->qp) {
		errno = EINVAL;
		return -1;
	}
	ret = ibv_query_qp(id->qp, &attr, IBV_QP_CAP, &init);
	if (ret) {
		errno = ret;
		return -1;
	}
	out->max_send_wr = attr.cap.max_send_wr;
	out->max_recv_wr = attr.cap.max_recv_wr;
	out->max_send_sge = attr.cap.max_send_sge;
	out->max_recv_sge = attr.cap.max_recv_sge;
	out->max_inline_data = attr.cap.max_inline_data;
	return 0;
}

int rf_pd_matches(struct ibv_pd *pd, struct rdma_cm_id *id)
{
	return pd->context == id->verbs;
}

void rf_set_context(struct rdma_cm_id *id, uintptr_t key)
{
	id->context = (void *)key;
}

int rf_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, uintptr_t key, int ps)
{
	return rdma_create_id(ch, id, (void *)key, ps);
}

// rf_resolve starts address resolution from the address info's source (if
// any) to its destination, as rdma_create_ep does, but asynchronously.
int rf_resolve(struct rdma_cm_id *id, struct rdma_addrinfo *ai, int timeout_ms)
{
	return rdma_resolve_addr(id, ai->ai_src_addr, ai->ai_dst_addr, timeout_ms);
}

int rf_has_route(struct rdma_addrinfo *ai)
{
	return ai->ai_route_len > 0;
}

// rf_set_route gives the id the IB path records rdma_getaddrinfo found,
// instead of resolving the route.
int rf_set_route(struct rdma_cm_id *id, struct rdma_addrinfo *ai)
{
	return rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, ai->ai_route, ai->ai_route_len);
}

// rf_set_option sets one RDMA_OPTION_ID option with the size librdmacm
// expects: a uint8_t for TOS and ACK_TIMEOUT, an int for the others.
int rf_set_option(struct rdma_cm_id *id, int name, int value)
{
	uint8_t v8 = (uint8_t)value;

	if (name == RDMA_OPTION_ID_TOS || name == RDMA_OPTION_ID_ACK_TIMEOUT)
		return rdma_set_option(id, RDMA_OPTION_ID, name, &v8, sizeof v8);
	return rdma_set_option(id, RDMA_OPTION_ID, name, &value, sizeof value);
}

// rf_bind binds a passive id to the address info's source, as
// rdma_create_ep does for RAI_PASSIVE.
int rf_bind(struct rdma_cm_id *id, struct rdma_addrinfo *ai)
{
	return rdma_bind_addr(id, ai->ai_src_addr);
}

int rf_query_qp_attrs(struct rdma_cm_id *id, struct rf_qp_attrs *out)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int ret;

	memset(out, 0, sizeof *out);
	if (!id->qp)
		return 0;
	ret = ibv_query_qp(id->qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_TIMEOUT |
			   IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &init);
	if (ret) {
		errno = ret;
		return -1;
	}
	out->connected = attr.qp_state >= IBV_QPS_RTR && attr.qp_state <= IBV_QPS_SQE;
	out->max_rd_atomic = attr.max_rd_atomic;
	out->max_dest_rd_atomic = attr.max_dest_rd_atomic;
	out->traffic_class = attr.ah_attr.grh.traffic_class;
	out->is_global = attr.ah_attr.is_global;
	out->timeout = attr.timeout;
	return 0;
}

int rf_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// rf_next_event takes one event, copies it and acks it. Returns 0, or -1
// with errno (EAGAIN when the non-blocking channel is empty).
int rf_next_event(struct rdma_event_channel *ch, struct rf_event *out)
{
	struct rdma_cm_event *ev;
	const void *pdata = NULL;
	int plen = 0;

	if (rdma_get_cm_event(ch, &ev))
		return -1;
	memset(out, 0, sizeof *out);
	out->type = ev->event;
	out->status = ev->status;
	out->id = ev->id;
	out->id_key = (uintptr_t)ev->id->context;
	out->listen_id = ev->listen_id;
	out->verbs = ev->id->verbs;
	if (ev->listen_id)
		out->listen_key = (uintptr_t)ev->listen_id->context;
	if (ev->id->qp_type == IBV_QPT_UD || ev->id->ps == RDMA_PS_UDP) {
		pdata = ev->param.ud.private_data;
		plen = ev->param.ud.private_data_len;
		out->qp_num = ev->param.ud.qp_num;
		out->qkey = ev->param.ud.qkey;
		out->ah_attr = ev->param.ud.ah_attr;
	} else {
		pdata = ev->param.conn.private_data;
		plen = ev->param.conn.private_data_len;
		out->responder_resources = ev->param.conn.responder_resources;
		out->initiator_depth = ev->param.conn.initiator_depth;
		out->retry_count = ev->param.conn.retry_count;
		out->rnr_retry_count = ev->param.conn.rnr_retry_count;
		out->qp_num = ev->param.conn.qp_num;
	}
	if (pdata && plen > 0) {
		if (plen > RF_MAX_PRIVATE_DATA)
			plen = RF_MAX_PRIVATE_DATA;
		memcpy(out->private_data, pdata, plen);
		out->private_data_len = plen;
	}
	return rdma_ack_cm_event(ev);
}

// rf_destroy_qp destroys an id's QP, if it has one (rdma_destroy_qp sets
// id->qp to NULL, so rdma_destroy_ep skips it after).
void rf_destroy_qp(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
}

static void copy_addr(struct sockaddr_storage *dst, struct sockaddr *src)
{
	if (!src)
		return;
	if (src->sa_family == AF_INET)
		memcpy(dst, src, sizeof(struct sockaddr_in));
	else if (src->sa_family == AF_INET6)
		memcpy(dst, src, sizeof(struct sockaddr_in6));
}

void rf_facts(struct rdma_cm_id *id, struct rf_facts *out)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(out, 0, sizeof *out);
	copy_addr(&out->local, rdma_get_local_addr(id));
	copy_addr(&out->remote, rdma_get_peer_addr(id));
	out->local_port = ntohs(rdma_get_src_port(id));
	out->remote_port = ntohs(rdma_get_dst_port(id));
	if (id->verbs && id->verbs->device)
		strncpy(out->device, ibv_get_device_name(id->verbs->device), sizeof out->device - 1);
	out->port_num = id->port_num;
	out->qp_state = -1;
	if (id->qp) {
		out->has_qp = 1;
		out->qp_num = id->qp->qp_num;
		out->qp_type = id->qp->qp_type;
		// A connected QP's dest_qp_num is the peer's QP, set when
		// librdmacm moved it to RTR: meaningful for RC and UC only, and
		// only from RTR on (a QP that has not reached RTR holds 0).
		memset(&attr, 0, sizeof attr);
		if (ibv_query_qp(id->qp, &attr, IBV_QP_STATE | IBV_QP_DEST_QPN, &init) == 0) {
			out->qp_state = attr.qp_state;
			if (id->qp->qp_type == IBV_QPT_RC || id->qp->qp_type == IBV_QPT_UC)
				out->dest_qp_num = attr.dest_qp_num;
		}
	}
}

// Every device list from rdma_get_devices holds a reference on librdmacm's
// device contexts; callers free it with rdma_free_devices as soon as they
// can, since a context held open keeps `rdma link delete` from completing.
struct ibv_context **rf_get_devices(int *n)
{
	struct ibv_context **list = rdma_get_devices(n);

	if (!list && !errno)
		errno = ENODEV;
	return list;
}

int rf_device_attr(struct ibv_context **list, int index, struct rf_device_attr *out)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx = list[index];

	memset(out, 0, sizeof *out);
	strncpy(out->name, ibv_get_device_name(ctx->device), sizeof out->name - 1);
	out->guid = ibv_get_device_guid(ctx->device);
	out->node_type = ctx->device->node_type;
	out->transport = ctx->device->transport_type;
	if (ibv_query_device(ctx, &attr))
		return -1;
	out->max_qp = attr.max_qp;
	out->max_qp_wr = attr.max_qp_wr;
	out->max_sge = attr.max_sge;
	out->max_cqe = attr.max_cqe;
	out->max_mr = attr.max_mr;
	out->max_pd = attr.max_pd;
	out->phys_port_cnt = attr.phys_port_cnt;
	out->max_qp_rd_atom = attr.max_qp_rd_atom;
	out->max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
	out->max_srq = attr.max_srq;
	out->max_srq_wr = attr.max_srq_wr;
	out->max_srq_sge = attr.max_srq_sge;
	return 0;
}

int rf_port_attr(struct ibv_context **list, int index, int port, struct rf_port_attr *out)
{
	struct ibv_port_attr attr;
	int ret = ibv_query_port(list[index], port, &attr);

	if (ret) {
		errno = ret;
		return -1;
	}
	out->state = attr.state;
	out->active_mtu = attr.active_mtu;
	out->link_layer = attr.link_layer;
	return 0;
}

// rf_alloc_pd allocates a PD on the named device's librdmacm context. On
// success *list holds the device list, whose reference keeps the context
// open for the PD's life; free it after ibv_dealloc_pd.
struct ibv_pd *rf_alloc_pd(const char *device, struct ibv_context ***list)
{
	int i, n;
	struct ibv_pd *pd;

	*list = rf_get_devices(&n);
	if (!*list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name((*list)[i]->device), device) != 0)
			continue;
		pd = ibv_alloc_pd((*list)[i]);
		if (pd)
			return pd;
		break;
	}
	if (i == n)
		errno = ENODEV;
	i = errno;
	rdma_free_devices(*list);
	*list = NULL;
	errno = i;
	return NULL;
}

int rf_max_cqe(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	if (ibv_query_device(ctx, &attr))
		return -1;
	return attr.max_cqe;
}

struct ibv_mr *rf_reg_msgs(struct rdma_cm_id *id, void *addr, size_t len)
{
	return rdma_reg_msgs(id, addr, len);
}

int rf_post_recv(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr)
{
	return rdma_post_recv(id, (void *)(uintptr_t)wr_id, addr, len, mr);
}

int rf_post_send(struct rdma_cm_id *id, uint64_t wr_id, void *addr, size_t len, struct ibv_mr *mr, int inline_data)
{
	return rdma_post_send(id, (void *)(uintptr_t)wr_id, addr, len, mr,
			      IBV_SEND_SIGNALED | (inline_data ? IBV_SEND_INLINE : 0));
}

// rf_poll takes up to max completions; it returns how many, or -1.
int rf_poll(struct ibv_cq *cq, struct rf_completion *out, int max)
{
	struct ibv_wc wc[16];
	int i, n;

	if (max > 16)
		max = 16;
	n = ibv_poll_cq(cq, max, wc);
	if (n < 0) {
		errno = -n > 0 ? -n : EIO;
		return -1;
	}
	for (i = 0; i < n; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = wc[i].status;
		out[i].opcode = wc[i].opcode;
		out[i].byte_len = wc[i].byte_len;
		out[i].qp_num = wc[i].qp_num;
		out[i].src_qp = wc[i].src_qp;
		out[i].wc_flags = wc[i].wc_flags;
		out[i].slid = wc[i].slid;
		out[i].sl = wc[i].sl;
		out[i].dlid_path_bits = wc[i].dlid_path_bits;
	}
	return n;
}

int rf_arm(struct ibv_cq *cq)
{
	int ret = ibv_req_notify_cq(cq, 0);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

// rf_take_cq_event consumes one notification from a non-blocking completion
// channel and acks it. Returns 0, or -1 with errno (EAGAIN when none).
int rf_take_cq_event(struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_get_cq_event(ch, &cq, &ctx))
		return -1;
	ibv_ack_cq_events(cq, 1);
	return 0;
}

// rf_next_async_event takes one event from a context's non-blocking async
// event descriptor, copies what names its object, and acks it. Returns 0,
// or -1 with errno (EAGAIN when none).
int rf_next_async_event(struct ibv_context *ctx, struct rf_async_event *out)
{
	struct ibv_async_event ev;

	if (ibv_get_async_event(ctx, &ev))
		return -1;
	memset(out, 0, sizeof *out);
	out->type = ev.event_type;
	switch (ev.event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		out->qp_key = (uintptr_t)ev.element.qp->qp_context;
		break;
	case IBV_EVENT_CQ_ERR:
		out->cq = ev.element.cq;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		out->port_num = ev.element.port_num;
		break;
	default:
		break;
	}
	ibv_ack_async_event(&ev);
	return 0;
}

// rf_file_id names the open file behind fd (device and inode), so it can be
// recognised later.
int rf_file_id(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

// rf_orphan_fd points fd at a read-only /dev/null if it still is the file
// (dev, ino): the file is released at once, and whoever owns the number
// may still close it later without closing another file.
int rf_orphan_fd(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;
	int null, ret;

	if (fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino) {
		errno = ESTALE;
		return -1;
	}
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0)
		return -1;
	ret = dup3(null, fd, O_CLOEXEC);
	close(null);
	return ret < 0 ? -1 : 0;
}

// rf_connect_detached sends the connect request of an id whose QP the
// binding moves itself, as cmtime does: the QP is taken off the id (saved
// in *saved) so that rdma_get_cm_event hands CONNECT_RESPONSE over instead
// of moving the QP to RTR and RTS inside the one event loop. On failure
// the QP is put back. Returns 0, or -1 with errno.
int rf_connect_detached(struct rdma_cm_id *id, struct rdma_conn_param *p, struct ibv_qp **saved)
{
	struct ibv_qp *qp = id->qp;
	int ret, err;

	p->qp_num = qp->qp_num;
	p->srq = qp->srq != NULL;
	*saved = qp;
	id->qp = NULL;
	ret = rdma_connect(id, p);
	if (ret) {
		err = errno;
		id->qp = qp;
		*saved = NULL;
		errno = err;
	}
	return ret;
}

// rf_port_is_ib reports whether the id's port has the InfiniBand link
// layer (1), another (0), or could not be queried (-1).
int rf_port_is_ib(struct rdma_cm_id *id)
{
	struct ibv_port_attr pa;

	if (!id->verbs || ibv_query_port(id->verbs, id->port_num, &pa))
		return -1;
	return pa.link_layer == IBV_LINK_LAYER_INFINIBAND;
}

static int rf_move_qp(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state, int ib)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	memset(&attr, 0, sizeof attr);
	attr.qp_state = state;
	if (rdma_init_qp_attr(id, &attr, &mask))
		return -1;
	// As librdmacm: on an InfiniBand port, bits 21-23 (old kernels'
	// RoCE-only attributes, which an ucma bug set there) are masked off.
	if (ib && state == IBV_QPS_RTR)
		mask &= ~0xe00000;
	ret = ibv_modify_qp(qp, &attr, mask);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

// rf_complete_connect answers a detached id's CONNECT_RESPONSE as cmtime
// does, with the steps librdmacm would have taken inside
// rdma_get_cm_event: the QP to INIT again (its access flags come from the
// connection: remote read and atomics when the peer may use them, which
// the INIT made at creation, before any connection, left out), then RTR
// and RTS, each with the attributes rdma_init_qp_attr gives, then
// rdma_establish (which needs id->qp unset). ib says the port's link
// layer is InfiniBand (rf_port_is_ib). *step is the call that
// failed: 0 INIT, 1 RTR, 2 RTS, 3 rdma_establish. The caller puts the QP
// back on the id. Returns 0, or -1 with errno; a failed QP is moved to
// ERR.
int rf_complete_connect(struct rdma_cm_id *id, struct ibv_qp *qp, int ib, int *step)
{
	struct ibv_qp_attr attr;
	int err;

	*step = 0;
	if (rf_move_qp(id, qp, IBV_QPS_INIT, ib))
		goto fail;
	*step = 1;
	if (rf_move_qp(id, qp, IBV_QPS_RTR, ib))
		goto fail;
	*step = 2;
	if (rf_move_qp(id, qp, IBV_QPS_RTS, ib))
		goto fail;
	*step = 3;
	if (rdma_establish(id))
		goto fail;
	return 0;
fail:
	err = errno;
	memset(&attr, 0, sizeof attr);
	attr.qp_state = IBV_QPS_ERR;
	ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	errno = err;
	return -1;
}
