# rdmaform test (docs/testing.md): run where the three agents of README.md
# answer (pki.sh's certificates in pki/). The compute host's endpoints
# reach both storage hosts. (live.* reads the local agent only, so these
# assertions use what each agent reported to apply.)

run "plan" {
  command = plan

  assert {
    condition     = endpoint.blocks["s1"].address == "10.77.1.1" && endpoint.blocks["s2"].address == "10.77.1.2"
    error_message = "The compute host should have an endpoint to each storage host."
  }
}

run "connects" {
  assert {
    condition     = alltrue([for k, e in endpoint.blocks : e.status == "established" && e.port == listener.blocks[k].port])
    error_message = "Both endpoints should be established to their storage host's listener."
  }
}
