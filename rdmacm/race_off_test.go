//go:build !race

package rdmacm

const raceDetector = false
