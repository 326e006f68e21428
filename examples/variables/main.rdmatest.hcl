# rdmaform test (docs/testing.md): variables set by the test file and by a
# run, a validation expected to fail, and an output known after apply.

variables {
  clients = 3
}

run "defaults" {
  command = plan

  assert {
    condition     = length(endpoint.api) == 3 && listener.api.port == 7480
    error_message = "Three clients of the listener on the default base_port, 7480."
  }

  assert {
    condition     = output.endpoints[2] == "10.77.0.1:7480" && endpoint.api[0].source_address == "10.77.0.1"
    error_message = "The endpoints connect from the subnet's first host to the listener."
  }
}

run "privileged_port" {
  command = plan

  variables {
    base_port = 80
  }

  expect_failures = [var.base_port]
}

run "applies" {
  variables {
    clients = 1
  }

  assert {
    condition     = output.listener_id == listener.api.id && endpoint.api[0].status == "established"
    error_message = "The listener's id is an output once applied, and the one client is established."
  }
}
