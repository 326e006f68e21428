//go:build race

package rdmacm

// raceDetector says the race detector is on: its shadow memory makes RSS
// figures meaningless, so the leak test checks descriptors only then.
const raceDetector = true
