package state

import (
	"encoding/json"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// ValueType is the output's type in cty's JSON type encoding: the one the
// state records, or, where it records none (an older or hand-written
// state), the type the JSON value implies (a tuple for an array, an
// object for an object). nil only for a value that is not JSON.
func (o *Output) ValueType() json.RawMessage {
	if len(o.Type) > 0 {
		return o.Type
	}
	ty, err := ctyjson.ImpliedType(o.Value)
	if err != nil {
		return nil
	}
	b, err := ctyjson.MarshalType(ty)
	if err != nil {
		return nil
	}
	return b
}

// CtyValue decodes the output's value with its ValueType.
func (o *Output) CtyValue() (cty.Value, error) {
	var ty cty.Type
	var err error
	if len(o.Type) > 0 {
		ty, err = ctyjson.UnmarshalType(o.Type)
	} else {
		ty, err = ctyjson.ImpliedType(o.Value)
	}
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(o.Value, ty)
}
