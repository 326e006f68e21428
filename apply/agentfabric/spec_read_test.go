package agentfabric

import (
	"reflect"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
)

// ReadSpec reads back what the agent was given: each of the
// configuration's fields survives the spec and its reverse.
func TestSpecReadBack(t *testing.T) {
	tos, ack, reuse, v6 := 96, 14, true, false
	l := &config.Listener{Address: "10.77.0.1", Port: 7471, PortSpace: "tcp", Backlog: 16, PD: "pd-7",
		QP:      &config.QP{Type: "rc", MaxSendWR: 32, MaxRecvWR: 31, MaxSendSGE: 2, MaxRecvSGE: 3, MaxInlineData: 64, SQSigAll: true},
		Options: &config.Options{TypeOfService: &tos, AckTimeout: &ack, ReuseAddress: &reuse, IPv6Only: &v6},
		SRQ:     &config.SRQ{MaxRecvWR: 512, MaxRecvSGE: 1},
		Accept:  config.Accept{ResponderResources: config.FromDevice, InitiatorDepth: 4, PrivateData: []byte("a"), RejectPrivateData: []byte{0x80}, MaxConnections: 8, Echo: true}}
	if got := listenerOf(listenerSpec(l)); !reflect.DeepEqual(got, l) {
		t.Errorf("listener read back as\n%+v\nwant\n%+v", *got, *l)
	}
	e := &config.Endpoint{Address: "10.77.0.1", Port: 7471, SourceAddress: "10.77.0.2", PortSpace: "udp", PD: "pd-7",
		QP:        &config.QP{Type: "ud", MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1},
		Connect:   config.Connect{ResponderResources: 2, InitiatorDepth: config.FromDevice, RetryCount: 5, RNRRetryCount: 3, PrivateData: []byte("c"), Timeout: time.Second},
		Reconnect: &config.Reconnect{MinBackoff: time.Second, MaxBackoff: time.Minute},
		Probe:     &config.Probe{Interval: time.Second, Size: 64, Timeout: 2 * time.Second, Mode: "write"}, CreateTimeout: 40 * time.Second}
	if got := endpointOf(endpointSpec(e)); !reflect.DeepEqual(got, e) {
		t.Errorf("endpoint read back as\n%+v\nwant\n%+v", *got, *e)
	}
}
