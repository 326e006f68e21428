package tui

import (
	"strconv"
	"strings"
	"syscall"
)

// errorText explains a failed call as apply does (agentfabric.CallError),
// the errno by the name rdma-core's users know it by:
//
//	rdma_connect: connection refused (ECONNREFUSED): REJECTED (reason 8: …)
//
// The agent's message is the whole Go error, which names the call and
// often the errno itself ("rdma_connect: connection refused
// (ECONNREFUSED)"); what it says twice is left out.
func errorText(e *ErrorInfo) string {
	if e.Errno == 0 && e.Call != "" && strings.HasPrefix(e.Message, e.Call) {
		return e.Message // `rdma_getaddrinfo("x", "7471"): …` names the call itself
	}
	parts := []string{e.Call}
	if e.Call == "" {
		parts = parts[:0]
	}
	var errno string
	if e.Errno != 0 {
		errno = errnoText(syscall.Errno(e.Errno), e.ErrnoName)
		parts = append(parts, errno)
	}
	if m := messageDetail(e.Message, e.Call, errno); m != "" {
		parts = append(parts, m)
	}
	return strings.Join(parts, ": ")
}

// errnoText is "connection refused (ECONNREFUSED)", with the name the
// agent gave, or "errno 4242" for a number it has no name for.
func errnoText(errno syscall.Errno, name string) string {
	if name == "" {
		return "errno " + strconv.Itoa(int(errno))
	}
	return errno.Error() + " (" + name + ")"
}

// messageDetail is what the agent's message adds to the call and the
// errno: without the call in front, and without the errno where the
// message has it alone, first or last.
func messageDetail(msg, call, errno string) string {
	if call != "" {
		msg = strings.TrimPrefix(msg, call+": ")
	}
	if errno == "" {
		return msg
	}
	text, _, _ := strings.Cut(errno, " (") // "connection refused", as errors say it
	for _, dup := range []string{errno, text} {
		if msg == dup {
			return ""
		}
		msg = strings.TrimPrefix(msg, dup+": ")
		msg = strings.TrimSuffix(msg, ": "+dup)
	}
	return msg
}
