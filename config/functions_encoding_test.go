package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// base64gzip, textencodebase64 and textdecodebase64 give Terraform 1.11's
// answers: the examples of its documentation and its own tests, its
// messages with "rdmaform version" for "Terraform version".
func TestEncodingFunctionsAsTerraforms(t *testing.T) {
	ctx := &hcl.EvalContext{Functions: Functions()}
	for _, c := range []struct{ expr, want string }{
		{`base64gzip("test")`, `"H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA"`},
		{`textencodebase64("Hello World", "UTF-16LE")`, `"SABlAGwAbABvACAAVwBvAHIAbABkAA=="`},
		{`textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")`, `"Hello World"`},
		{`textencodebase64("abc123!?$*&()'-=@~", "UTF-8")`, `"YWJjMTIzIT8kKiYoKSctPUB+"`},
		{`textencodebase64("abc123!?$*&()'-=@~", "CP936")`, `"YWJjMTIzIT8kKiYoKSctPUB+"`},
		{`textdecodebase64("YQBiAGMAMQAyADMAIQA/ACQAKgAmACgAKQAnAC0APQBAAH4A", "UTF-16LE")`, `"abc123!?$*\u0026()'-=@~"`}, // ctyjson escapes &
	} {
		checkExpr(t, ctx, c.expr, c.want)
	}
	for _, c := range []struct{ expr, err string }{
		{`textencodebase64("x", "NOT-EXISTS")`, `"NOT-EXISTS" is not a supported IANA encoding name or alias in this rdmaform version`},
		{`textdecodebase64("x", "NOT-EXISTS")`, `"NOT-EXISTS" is not a supported IANA encoding name or alias in this rdmaform version`},
		{`textencodebase64("🤔", "cp437")`, `the given string contains characters that cannot be represented in IBM437`},
		{`textdecodebase64("<invalid base64>", "cp437")`, `the given value has an invalid base64 symbol at offset 0`},
		{`textdecodebase64("gQ==", "windows-1250")`, `the given string contains symbols that are not defined for windows-1250`},
	} {
		e, _ := hclsyntax.ParseExpression([]byte(c.expr), "f.hcl", hcl.InitialPos)
		if _, diags := e.Value(ctx); !diags.HasErrors() || !strings.Contains(diags.Error(), c.err) {
			t.Errorf("%s: %v, want an error with %q", c.expr, diags, c.err)
		}
	}
}
