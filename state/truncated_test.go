package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A truncated state names the backup to restore only where there is one.
func TestTruncatedStateNamesAnExistingBackup(t *testing.T) {
	data := []byte(`{"version": 4, "serial": 1`)
	if _, err := Decode(data, "standard input"); err == nil || strings.Contains(err.Error(), "backup") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("standard input: %v", err)
	}
	path := filepath.Join(t.TempDir(), "rdmaform.rdmastate")
	os.WriteFile(path+".backup", []byte("{}"), 0o600)
	if _, err := Decode(data, path); err == nil || !strings.Contains(err.Error(), "restore "+path+".backup") {
		t.Errorf("a file with a backup: %v", err)
	}
}

// A Terraform state is named as such, not as a newer rdmaform format.
func TestTerraformStateIsNamed(t *testing.T) {
	data := []byte(`{"version": 4, "terraform_version": "1.9.5", "serial": 1, "lineage": "x", "outputs": {}, "resources": []}`)
	if _, err := Decode(data, "tf.json"); err == nil || !strings.Contains(err.Error(), "this is a Terraform (or OpenTofu) state, written by Terraform 1.9.5") || strings.Contains(err.Error(), "Upgrade") {
		t.Errorf("%v", err)
	}
}
