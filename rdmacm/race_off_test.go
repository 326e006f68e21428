//go:build !race && linux && cgo && integration

package rdmacm

const raceDetector = false
