package agentfabric

import (
	"testing"

	"github.com/rdmaform/rdmaform/config"
)

// The specs carry the options as given (absent ones absent, for the
// kernel's defaults) and say which rd atomics the configuration left out.
func TestSpecsCarryOptionsAndRdAtoms(t *testing.T) {
	tos, ack, yes := 106, 14, true
	e := endpointSpec(&config.Endpoint{Address: "10.77.0.1", Port: 7471,
		Options: &config.Options{TypeOfService: &tos, AckTimeout: &ack},
		Connect: config.Connect{ResponderResources: config.FromDevice, InitiatorDepth: 3}})
	if o := e.Options; o == nil || o.GetTypeOfService() != 106 || o.GetAckTimeout() != 14 || o.ReuseAddress != nil || o.Ipv6Only != nil {
		t.Errorf("endpoint options = %v", o)
	}
	if c := e.Connect; !c.AutoResponderResources || c.ResponderResources != 0 || c.AutoInitiatorDepth || c.InitiatorDepth != 3 {
		t.Errorf("endpoint connect = %v", c)
	}
	l := listenerSpec(&config.Listener{Address: "::", Port: 7471, Options: &config.Options{IPv6Only: &yes},
		Accept: config.Accept{ResponderResources: 0, InitiatorDepth: config.FromDevice}})
	if o := l.Options; o == nil || !o.GetIpv6Only() || o.TypeOfService != nil {
		t.Errorf("listener options = %v", o)
	}
	if a := l.Accept; a.AutoResponderResources || !a.AutoInitiatorDepth {
		t.Errorf("listener accept = %v: an explicit 0 is not left out", a)
	}
	if s := listenerSpec(&config.Listener{Address: "10.77.0.1", Port: 1}); s.Options != nil {
		t.Errorf("no options block gives %v", s.Options)
	}
}
