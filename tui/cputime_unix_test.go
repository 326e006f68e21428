//go:build unix

package tui

import (
	"syscall"
	"time"
)

// cpuTime is the CPU the process has used, its own work and the
// runtime's (the garbage collector's) alike: a figure that a busy host,
// where other processes take the CPU, moves less than the time elapsed.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
