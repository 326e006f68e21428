package client

import (
	"testing"
)

func TestPrivateDataTextQuotesTextAndLabelsTheRestHex(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{nil, ""},
		{[]byte("many-0"), `"many-0"`},
		{[]byte(" srv accept "), `" srv accept "`}, // the quotes show the spaces
		{[]byte(`say "hi"`), `"say \"hi\""`},
		{[]byte("grüße"), `"grüße"`},
		{[]byte("line\n"), `"line\n"`},                   // a line end, escaped
		{[]byte("bell\a"), "hex 62656c6c07"},             // another control character
		{[]byte{0xde, 0xad, 0xbe, 0xef}, "hex deadbeef"}, // not UTF-8
		{[]byte{'a', 0, 'b'}, "hex 610062"},              // a zero inside (trailing ones are trimmed by the agent)
	} {
		if got := PrivateDataText(c.in); got != c.want {
			t.Errorf("PrivateDataText(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
