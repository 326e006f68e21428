package client

import (
	"slices"
	"testing"
)

func TestAgentEnvDropsTheCLIArgs(t *testing.T) {
	env := []string{"PATH=/bin", "RDMAFORM_CLI_ARGS=-no-color", "RDMAFORM_CLI_ARGS_apply=-auto-approve", "RDMAFORM_VAR_x=1"}
	got := agentEnv(env)
	if want := []string{"PATH=/bin", "RDMAFORM_VAR_x=1"}; !slices.Equal(got, want) {
		t.Fatalf("agentEnv(%q) = %q, want %q", env, got, want)
	}
	if env[1] != "RDMAFORM_CLI_ARGS=-no-color" {
		t.Fatalf("agentEnv changed its argument: %q", env)
	}
}
