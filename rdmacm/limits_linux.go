//go:build linux && cgo

package rdmacm

import "sync"

// deviceLimits caches each device's limits: they are fixed for a device's
// life, and querying them for every endpoint would cost two verbs calls each.
var deviceLimits sync.Map // name -> Limits

// limitsFor returns the limits that bound a QP created on pd: the PD's
// device's, or without a PD the most generous of all devices (the device is
// chosen by the address, known only once the id exists). Nil when no device
// can be queried; librdmacm then has the last word.
func limitsFor(pd *PD) *Limits {
	if pd != nil {
		if l, ok := deviceLimits.Load(pd.Device()); ok {
			lim := l.(Limits)
			return &lim
		}
	}
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		return nil
	}
	var widest Limits
	for _, d := range devs {
		deviceLimits.Store(d.Name, d.Limits)
		if pd != nil && d.Name == pd.Device() {
			lim := d.Limits
			return &lim
		}
		widest.MaxQPWR = max(widest.MaxQPWR, d.Limits.MaxQPWR)
		widest.MaxSGE = max(widest.MaxSGE, d.Limits.MaxSGE)
	}
	return &widest
}
