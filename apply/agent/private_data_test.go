package agent

import (
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// The agent refuses no private data that validate let through, and lets
// through none that validate refuses: both follow the kernel's choice of
// SIDR or connection messages by port space and QP type.
func TestPrivateDataLimitsAgreeWithTheConfiguration(t *testing.T) {
	spaces := map[string]rdmacm.PortSpace{"tcp": rdmacm.PSTCP, "udp": rdmacm.PSUDP, "ib": rdmacm.PSIB, "ipoib": rdmacm.PSIPoIB}
	types := map[string]rdmacm.QPType{"rc": rdmacm.RC, "uc": rdmacm.UC, "ud": rdmacm.UD}
	dirs := map[config.Direction]rdmacm.Direction{config.DirConnect: rdmacm.Connect, config.DirAccept: rdmacm.Accept, config.DirReject: rdmacm.Reject}
	for ps, rps := range spaces {
		// Without a qp block: each side's default QP type.
		if got, want := rdmacm.DefaultQPType(rps).String(), string(config.NaturalQPType(config.PortSpace(ps))); got != want {
			t.Errorf("port space %s: the agent's default QP type is %s, the configuration's %s", ps, got, want)
		}
		for qp, rqp := range types {
			for d, rd := range dirs {
				if agent, cfg := rdmacm.MaxPrivateData(rps, rqp, rd), config.PrivateDataLimit(config.PortSpace(ps), config.QPType(qp), d); agent != cfg {
					t.Errorf("%s/%s %s: the agent allows %d bytes, the configuration %d", ps, qp, d, agent, cfg)
				}
			}
		}
	}
}
