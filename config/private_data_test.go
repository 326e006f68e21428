package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// private_data_base64 and reject_private_data_base64 carry bytes an HCL
// string cannot hold (0x80 and above, as in an InfiniBand ULP's binary
// header): they reach the typed values exactly, as the text forms do.
func TestPrivateDataBase64CarriesBytesThatAreNotUTF8(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data_base64        = "3q2+7w=="
    reject_private_data_base64 = base64encode("full")
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  connect {
    private_data_base64 = "AAEC/4CA"
  }
}
endpoint "text" {
  address = listener.l.address
  port    = listener.l.port
  connect {
    private_data        = "hdr"
    private_data_base64 = null
  }
}
`})
	a := instance(t, cfg, "listener.l").Listener.Accept
	if !bytes.Equal(a.PrivateData, []byte{0xde, 0xad, 0xbe, 0xef}) || string(a.RejectPrivateData) != "full" {
		t.Errorf("accept private data % x, reject %q", a.PrivateData, a.RejectPrivateData)
	}
	if got := instance(t, cfg, "endpoint.e").Endpoint.Connect.PrivateData; !bytes.Equal(got, []byte{0x00, 0x01, 0x02, 0xff, 0x80, 0x80}) {
		t.Errorf("connect private data % x", got)
	}
	// A null base64 form is not set: it does not conflict with the text.
	if got := instance(t, cfg, "endpoint.text").Endpoint.Connect.PrivateData; string(got) != "hdr" {
		t.Errorf("connect private data %q, want the text form's", got)
	}
}

// A binary header kept in a file is read with filebase64, as Terraform's
// content_base64 is given one.
func TestPrivateDataBase64FromAFile(t *testing.T) {
	dir := t.TempDir()
	hdr := []byte{0x01, 0x80, 0xfe, 0xff, 0x00, 0x10}
	if err := os.WriteFile(filepath.Join(dir, "hdr.bin"), hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main"+HCLSuffix), []byte(`
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data_base64 = filebase64("${path.module}/hdr.bin")
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	cfg, diags := NewLoader().Load(".", VarInputs{})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := instance(t, cfg, "endpoint.e").Endpoint.Connect.PrivateData; !bytes.Equal(got, hdr) {
		t.Errorf("connect private data % x, want the file's % x", got, hdr)
	}
}

// In validate mode a variable without a value is unknown, and may yet be
// null: the two forms from two such variables do not conflict there.
func TestPrivateDataFormsFromUnknownVariablesDoNotConflict(t *testing.T) {
	l := NewLoader()
	l.Validate = true
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "text" {
  type    = string
}
variable "bytes" {
  type    = string
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data        = var.text
    private_data_base64 = var.bytes
  }
}
`)}, VarInputs{})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
}

// An invalid base64 value that is sensitive is not shown by its error.
func TestInvalidBase64DoesNotShowASensitiveValue(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "hdr" {
  type      = string
  default   = "hunter2!"
  sensitive = true
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data_base64 = var.hdr
  }
}
`)}, VarInputs{})
	var b strings.Builder
	_ = l.WriteDiagnostics(&b, diags, false, 0)
	if !diags.HasErrors() || !strings.Contains(b.String(), "Invalid base64") || strings.Contains(b.String(), "hunter2") {
		t.Errorf("diagnostics:\n%s", b.String())
	}
}

// A timeouts.create under 100ms is valid but draws a warning at its
// value (the create would fail although the peer answers); 100ms does not.
func TestShortCreateTimeoutWarns(t *testing.T) {
	load := func(create string) hcl.Diagnostics {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = "` + create + `"
  }
}
`)}, VarInputs{})
		return diags
	}
	diags := load("50ms")
	if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || diags[0].Summary != "Create timeout shorter than a connect" {
		t.Fatalf("want one warning, got %v", diags)
	}
	if s := diags[0].Subject; s == nil || s.Filename != "main.rdma.hcl" || s.Start.Line != 5 || s.Start.Column != 14 {
		t.Errorf("subject %v, want main.rdma.hcl:5,14", s)
	}
	if !strings.Contains(diags[0].Detail, `timeouts.create = "50ms" is under 100ms`) {
		t.Errorf("detail %q", diags[0].Detail)
	}
	if diags := load("100ms"); len(diags) != 0 {
		t.Errorf("100ms: %v", diags)
	}
}
