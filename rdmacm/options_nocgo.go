//go:build !(linux && cgo)

package rdmacm

import (
	"context"
	"time"
)

func CreateEPWith(*AddrInfo, *PD, *QPInit, *EventChannel, Options) (*ID, error) {
	return nil, ErrNotBuilt
}

func DialWith(context.Context, *AddrInfo, *PD, *QPInit, *EventChannel, time.Duration, Options) (*ID, error) {
	return nil, ErrNotBuilt
}

func (*ID) SetAckTimeout(uint8) error       { return ErrNotBuilt }
func (*ID) QPAttrs() (QPAttrs, bool, error) { return QPAttrs{}, false, ErrNotBuilt }
func (*ID) DeviceLimits() (Limits, error)   { return Limits{}, ErrNotBuilt }
