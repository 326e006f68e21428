// Command rdmaform manages RDMA connections declaratively: it reads HCL files
// declaring listeners and endpoints, plans the difference against its state,
// and makes the fabric match through librdmacm.
package main

import (
	"os"

	"github.com/rdmaform/rdmaform/command"
)

func main() {
	os.Exit(command.Run(os.Args[1:]))
}
