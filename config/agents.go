package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Agent is one instance of an agent block: how the CLI reaches the agent
// of one host of the fabric, as a provider configuration tells Terraform
// how to reach an API. Objects choose theirs with the agent
// meta-argument; those without one use the local agent (the rdmaform
// block's agent settings).
type Agent struct {
	// Key is the instance's address: agent.compute, agent.storage["s1"],
	// agent.r[0].
	Key string
	// Address is the agent's HOST:PORT ([ADDR]:PORT for IPv6), served
	// over mutual TLS; checked to have a host and a port from 1 to 65535.
	Address string
	TLS     AgentTLS
	// DeclRange is the agent block's header, for diagnostics.
	DeclRange hcl.Range

	addr  addrs.Instance // Key, parsed: for ordering
	value cty.Value      // the instance's value in expressions
	body  *bodyTemplate  // for diagnostics at its attributes
}

// AgentTLS is an agent block's tls block: the files the CLI proves itself
// with and checks the agent's certificate against. A relative path is
// resolved against the configuration's directory (the directory Load was
// given, joined in front of it), as file() reads relative paths from it
// (the CLI loads "." after -chdir, so there the paths stay as written).
// The files are not read when loading; only the paths, never the files'
// contents, reach a plan or the state.
type AgentTLS struct {
	CAFile, CertFile, KeyFile string
	// ServerName is the name the agent's certificate must hold (""
	// means the host part of Address).
	ServerName string
}
