package tui

import "github.com/rdmaform/rdmaform/tui/termsafe"

// The source's text comes from outside: object names from the agent's
// clients, peers' addresses, reject reasons and private data, error
// messages. Drawn as it is, an escape sequence in it would drive the
// terminal (retitle it, move the cursor over the screen) and throw the
// table's widths off, so the relay escapes every string as it comes in
// (termsafe.String), once per change rather than once per frame. The
// escaping is deterministic, so an object's address and its connections'
// Parent stay equal, and an update still finds the object it replaces.

// safeObject is o with its text escaped. It copies a slice only when one
// of its strings changes: the source's own are left as they are.
func safeObject(o Object) Object {
	for _, s := range []*string{&o.Address, &o.Parent, &o.Host, &o.Kind, &o.Status, &o.LocalAddr, &o.RemoteAddr,
		&o.QPType, &o.Device, &o.LastEvent, &o.ReceivedPrivateData, &o.Kernel} {
		*s = termsafe.String(*s)
	}
	if e := o.LastError; e != nil && !safe(e.Call, e.ErrnoName, e.Message) {
		c := *e
		c.Call, c.ErrnoName, c.Message = termsafe.String(e.Call), termsafe.String(e.ErrnoName), termsafe.String(e.Message)
		o.LastError = &c
	}
	for i, s := range o.Config {
		if !safe(s.Key, s.Value) {
			o.Config = append([]Setting(nil), o.Config...)
			for j := i; j < len(o.Config); j++ {
				o.Config[j] = Setting{Key: termsafe.String(o.Config[j].Key), Value: termsafe.String(o.Config[j].Value)}
			}
			break
		}
	}
	for i, ev := range o.History {
		if !safe(ev.Name, ev.Detail) {
			o.History = append([]Event(nil), o.History...)
			for j := i; j < len(o.History); j++ {
				o.History[j].Name, o.History[j].Detail = termsafe.String(o.History[j].Name), termsafe.String(o.History[j].Detail)
			}
			break
		}
	}
	return o
}

// safeAgent is a with its text escaped.
func safeAgent(a AgentInfo) AgentInfo {
	a.Socket = termsafe.String(a.Socket)
	for i, d := range a.Devices {
		ok := safe(d.Name)
		for _, p := range d.Ports {
			ok = ok && safe(p.State)
		}
		if ok {
			continue
		}
		a.Devices = append([]DeviceInfo(nil), a.Devices...)
		d.Name = termsafe.String(d.Name)
		d.Ports = append([]PortInfo(nil), d.Ports...)
		for j := range d.Ports {
			d.Ports[j].State = termsafe.String(d.Ports[j].State)
		}
		a.Devices[i] = d
	}
	return a
}

// safe reports whether every one of texts is shown as it is.
func safe(texts ...string) bool {
	for _, s := range texts {
		if termsafe.String(s) != s {
			return false
		}
	}
	return true
}
