# rdmaform test (docs/testing.md): the storage clients connect and probe
# (their postconditions and the check block hold), and a client count the
# validation refuses fails as expected.

run "clients_connect" {
  assert {
    condition     = length(endpoint.client) == 3 && alltrue([for c in endpoint.client : c.status == "established"])
    error_message = "The three storage clients should be established."
  }

  assert {
    condition     = alltrue([for c in live.endpoint.client : c.probe.received > 0 && c.probe.lost == 0 && c.probe.max_ms < 1000])
    error_message = "Every storage client's probes should be answered within a second, none lost."
  }
}

run "too_many_clients" {
  command = plan

  variables {
    clients = 9
  }

  expect_failures = [var.clients]
}
