// Package agentpb holds the rdmaform agent's protobuf definitions
// (agent.proto) and the Go code generated from them. Regenerate it with
// scripts/gen-proto after editing agent.proto; never edit the .pb.go files.
package agentpb
