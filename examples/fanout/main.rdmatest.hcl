# rdmaform test (docs/testing.md): one listener and one endpoint per
# service, each endpoint on its service's port.

run "plan" {
  command = plan

  assert {
    condition     = output.ports["metadata"] == 7471 && output.ports["blocks"] == 7472 && output.ports["journal"] == 7473
    error_message = "Each service should listen on its own port."
  }

  assert {
    condition     = endpoint.svc["journal"].port == listener.svc["journal"].port
    error_message = "The journal endpoint should connect to the journal listener."
  }
}

run "connects" {
  assert {
    condition     = alltrue([for name, e in endpoint.svc : e.status == "established" && e.port == listener.svc[name].port])
    error_message = "Every service's endpoint should be established to its own listener."
  }

  assert {
    condition     = length(live.endpoint.svc) == 3 && alltrue([for e in live.endpoint.svc : e.status == "established"])
    error_message = "The agent should hold the three endpoints, established."
  }
}
