package agentpb

import "fmt"

// Program names the process that holds a kernel resource: "rping (pid
// 4242)", "pid 4242" when its command is unknown, or the kernel's own
// user ("the kernel's rdma_cm").
func (r *KernelResource) Program() string {
	switch {
	case r.GetPid() == 0:
		return "the kernel's " + r.GetCommand()
	case r.GetCommand() == "":
		return fmt.Sprintf("pid %d", r.GetPid())
	}
	return fmt.Sprintf("%s (pid %d)", r.GetCommand(), r.GetPid())
}
