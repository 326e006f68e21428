package rdmacm

import (
	"fmt"
	"strconv"
)

// checkService refuses a port librdmacm would misread: an active endpoint
// must name the listener's port, 1-65535; a passive one may leave it 0 for
// an ephemeral port.
func checkService(service string, passive bool) error {
	if service == "" {
		if passive {
			return nil
		}
		return fmt.Errorf("rdma_getaddrinfo: an active endpoint needs the listener's port (1-65535)")
	}
	n, err := strconv.Atoi(service)
	if err != nil {
		// A service name such as "rdma" is resolved by getaddrinfo itself.
		return nil
	}
	if n < 0 || n > 65535 {
		return fmt.Errorf("rdma_getaddrinfo: port %d is outside 1-65535", n)
	}
	if n == 0 && !passive {
		return fmt.Errorf("rdma_getaddrinfo: port 0 is not allowed for an active endpoint: give the listener's port (1-65535)")
	}
	return nil
}
