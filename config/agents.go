package config

import "github.com/hashicorp/hcl/v2"

// Agent is one instance of an agent block: how the CLI reaches the agent
// of one host of the fabric, as a provider configuration tells Terraform
// how to reach an API. Objects choose theirs with the agent
// meta-argument; those without one use the local agent (the rdmaform
// block's agent settings).
type Agent struct {
	// Key is the instance's address: agent.compute, agent.storage["s1"].
	Key string
	// Address is the agent's HOST:PORT, served over mutual TLS.
	Address string
	TLS     AgentTLS
	// DeclRange is the agent block's header, for diagnostics.
	DeclRange hcl.Range
}

// AgentTLS is an agent block's tls block: the files the CLI proves itself
// with and checks the agent's certificate against. Paths are as written,
// relative to the working directory; only the paths, never the files'
// contents, reach a plan or the state.
type AgentTLS struct {
	CAFile, CertFile, KeyFile string
	// ServerName is the name the agent's certificate must hold (""
	// means the host part of Address).
	ServerName string
}
