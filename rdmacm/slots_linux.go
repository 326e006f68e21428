//go:build linux && cgo

package rdmacm

import "runtime"

// cSlots bounds how many goroutines are inside the slower librdmacm and
// verbs calls at once (creating ids and QPs, starting resolutions and
// connects). A goroutine in a cgo call holds an OS thread, so a thousand
// Dials at once would otherwise make the runtime start a thousand threads
// for work the kernel serialises anyway; the waits between those calls
// happen in Go and still overlap.
var cSlots = make(chan struct{}, 2*runtime.GOMAXPROCS(0))

func withCSlot[T any](f func() T) T {
	cSlots <- struct{}{}
	defer func() { <-cSlots }()
	return f()
}
