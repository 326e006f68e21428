# rdmaform test (docs/testing.md): a UD endpoint resolves the listener's QP
# (SIDR) and its probes, datagrams the listener echoes, come back.

run "resolves" {
  assert {
    condition     = listener.ud.port_space == "udp" && endpoint.ud.qp_num > 0
    error_message = "The UD endpoint should have its own QP on the udp port space."
  }

  assert {
    condition     = live.endpoint.ud.status == "established" && live.endpoint.ud.probe.received > 0 && live.endpoint.ud.probe.max_ms < 1000
    error_message = "The endpoint's datagrams to the listener's QP should be echoed within a second."
  }
}
