//go:build race && linux && cgo && integration

package rdmacm

// raceDetector says the race detector is on: its shadow memory makes RSS
// figures meaningless, so the leak test checks descriptors only then.
const raceDetector = true
