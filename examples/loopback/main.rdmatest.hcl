# rdmaform test (docs/testing.md): plans the loopback pair, then applies it
# on the Soft-RoCE testbed and checks that every endpoint connected and
# that its probes, echoed by the listener, come back. What the runs applied
# is destroyed when the file ends.

run "plan" {
  command = plan

  assert {
    condition     = listener.loop.port == 7471 && length(endpoint.client) == 4
    error_message = "The plan should make one listener on 7471 and four endpoints."
  }

  assert {
    condition     = endpoint.client[2].connect.private_data == "client-2"
    error_message = "Each endpoint sends its own index as private data."
  }
}

run "connects" {
  assert {
    condition     = alltrue([for e in endpoint.client : e.status == "established" && e.qp_num > 0])
    error_message = "Every endpoint should be established, on a QP of its own."
  }

  assert {
    condition     = length(distinct([for e in endpoint.client : e.qp_num])) == 4
    error_message = "The endpoints should have four different QPs."
  }

  # The agent's live view: each endpoint's probes answered, every round
  # trip under a second (a bound the slowest emulated testbed meets).
  assert {
    condition     = alltrue([for e in live.endpoint.client : e.status == "established" && e.probe.received > 0 && e.probe.max_ms < 1000])
    error_message = "Every endpoint's probes should be answered within a second."
  }
}
