//go:build linux && cgo

package rdmacm

import "sync"

// deviceLimits caches device limits: they are fixed for a device's life, and
// querying them for every endpoint would cost several verbs calls each.
var deviceLimits struct {
	sync.Mutex
	byName map[string]Limits
	widest Limits
}

// limitsFor returns the limits that bound a QP created on pd: the PD's
// device's, or without a PD the most generous of all devices (the device is
// chosen by the address, known only once the id exists). Nil when no device
// can be queried; librdmacm then has the last word.
func limitsFor(pd *PD) *Limits {
	if pd == nil {
		return cachedLimits("")
	}
	return cachedLimits(pd.Device())
}

// limitsOf returns the named device's limits, or nil.
func limitsOf(device string) *Limits {
	if device == "" {
		return nil
	}
	return cachedLimits(device)
}

// cachedLimits returns the named device's limits ("": the most generous
// of all), querying the devices once.
func cachedLimits(device string) *Limits {
	deviceLimits.Lock()
	defer deviceLimits.Unlock()
	lookup := func() (Limits, bool) {
		if device == "" {
			return deviceLimits.widest, deviceLimits.byName != nil
		}
		l, ok := deviceLimits.byName[device]
		return l, ok
	}
	if l, ok := lookup(); ok {
		return &l
	}
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		return nil
	}
	deviceLimits.byName = make(map[string]Limits, len(devs))
	deviceLimits.widest = Limits{}
	for _, d := range devs {
		deviceLimits.byName[d.Name] = d.Limits
		deviceLimits.widest.MaxQPWR = max(deviceLimits.widest.MaxQPWR, d.Limits.MaxQPWR)
		deviceLimits.widest.MaxSGE = max(deviceLimits.widest.MaxSGE, d.Limits.MaxSGE)
	}
	if l, ok := lookup(); ok {
		return &l
	}
	return nil
}
