package config

import "testing"

func TestFormat(t *testing.T) {
	l := NewLoader()
	out, diags := l.Format([]byte("listener \"a\" {\naddress=\"10.77.0.1\"\n  port    =   7471\n}\n"), "a.rdma.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := "listener \"a\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n"
	if string(out) != want {
		t.Errorf("Format = %q, want %q", out, want)
	}
	if _, diags := l.Format([]byte("listener \"a\" {\n  port = \n"), "b.rdma.hcl"); !diags.HasErrors() || diags[0].Subject == nil || diags[0].Subject.Filename != "b.rdma.hcl" {
		t.Errorf("syntax error: diags = %v", diags)
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\n"
	b := "a\nb\nc\nd\nE\nf\ng\nh\ni\n"
	want := "--- old\n+++ new\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
	if got := UnifiedDiff([]byte(a), []byte(b), "old", "new"); got != want {
		t.Errorf("diff =\n%s\nwant\n%s", got, want)
	}
	if got := UnifiedDiff([]byte(a), []byte(a), "old", "new"); got != "" {
		t.Errorf("equal inputs: diff = %q", got)
	}
	if got := UnifiedDiff([]byte("x"), []byte("x\ny\n"), "old", "new"); got != "--- old\n+++ new\n@@ -1,1 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n+y\n" {
		t.Errorf("no trailing newline: diff =\n%s", got)
	}
}

// As Terraform's fmt: an expression that is one interpolation loses its
// quotes, and legacy variable types become type constraints; templates
// with more in them, and comments, stay.
func TestFormatUpgradesAsTerraform(t *testing.T) {
	src := `variable "a" {
  type = "string"
}
variable "l" {
  type = list # a comment
}
variable "m" {
  type = "map"
}
variable "s" {
  type = set
}
listener "x" {
  address = "${var.a}"
  port    = "${var.p + 1}" // kept comment
  name    = "${var.a}-${var.b}"
  tag     = "x${var.a}"
  nested  = "${format("%s", "${var.a}")}"
  multi   = "${
    var.c ? 1 : 2
  }"
  lines   = "${var.c ?
  1 : 2}"
  qp {
    type = "${var.t}"
  }
}
`
	want := `variable "a" {
  type = string
}
variable "l" {
  type = list(any) # a comment
}
variable "m" {
  type = map(string)
}
variable "s" {
  type = set(any)
}
listener "x" {
  address = var.a
  port    = var.p + 1 // kept comment
  name    = "${var.a}-${var.b}"
  tag     = "x${var.a}"
  nested  = format("%s", "${var.a}")
  multi   = var.c ? 1 : 2
  lines = (var.c ?
  1 : 2)
  qp {
    type = var.t
  }
}
`
	out, diags := NewLoader().Format([]byte(src), "u.rdma.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if string(out) != want {
		t.Errorf("Format =\n%s\nwant\n%s\n%s", out, want, UnifiedDiff([]byte(want), out, "want", "got"))
	}
	again, _ := NewLoader().Format(out, "u.rdma.hcl")
	if string(again) != string(out) {
		t.Errorf("not idempotent:\n%s", UnifiedDiff(out, again, "once", "twice"))
	}
}
