package config

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
)

// The cidr family, as Terraform's: cidrhost, cidrnetmask, cidrsubnet.

func parsePrefix(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, fmt.Errorf("invalid CIDR prefix %q", s)
	}
	return p.Masked(), nil
}

// addToAddr returns base + n (n may be negative, counting from the end of
// the prefix as Terraform does), or an error when it leaves the prefix.
func addToAddr(p netip.Prefix, n *big.Int) (netip.Addr, error) {
	bits := p.Addr().BitLen()
	hostBits := bits - p.Bits()
	size := new(big.Int).Lsh(big.NewInt(1), uint(hostBits))
	if n.Sign() < 0 {
		n = new(big.Int).Add(size, n)
	}
	if n.Sign() < 0 || n.Cmp(size) >= 0 {
		return netip.Addr{}, fmt.Errorf("prefix %s has no host number %s", p, n)
	}
	base := new(big.Int).SetBytes(p.Addr().AsSlice())
	base.Add(base, n)
	buf := make([]byte, bits/8)
	base.FillBytes(buf)
	a, _ := netip.AddrFromSlice(buf)
	return a, nil
}

var cidrHostFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "hostnum", Type: cty.Number}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		n, _ := args[1].AsBigFloat().Int(nil)
		a, err := addToAddr(p, n)
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(1, err)
		}
		return cty.StringVal(a.String()), nil
	},
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		if !p.Addr().Is4() {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "cidrnetmask needs an IPv4 prefix")
		}
		return cty.StringVal(net.IP(net.CIDRMask(p.Bits(), 32)).String()), nil
	},
})

var cidrSubnetFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String}, {Name: "newbits", Type: cty.Number}, {Name: "netnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		var newbits int
		if err := gocty.FromCtyValue(args[1], &newbits); err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(1, err)
		}
		bits := p.Bits() + newbits
		if newbits < 0 || bits > p.Addr().BitLen() {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "cannot extend a /%d prefix by %d bits", p.Bits(), newbits)
		}
		n, _ := args[2].AsBigFloat().Int(nil)
		if n.Sign() < 0 || n.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(newbits))) >= 0 {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(2, "netnum %s does not fit in %d bits", n, newbits)
		}
		off := new(big.Int).Lsh(n, uint(p.Addr().BitLen()-bits))
		a, err := addToAddr(p, off)
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(2, err)
		}
		return cty.StringVal(netip.PrefixFrom(a, bits).String()), nil
	},
})
