package client

import (
	"os"
	"strings"
	"testing"
)

func TestChooseSocket(t *testing.T) {
	if got := ChooseSocket("/a.sock", "/b.sock"); got != "/a.sock" {
		t.Errorf("the flag loses: %s", got)
	}
	if got := ChooseSocket("", "/b.sock"); got != "/b.sock" {
		t.Errorf("the setting loses: %s", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	got := ChooseSocket("", "")
	if os.Geteuid() == 0 {
		if got != "/run/rdmaform/agent.sock" {
			t.Errorf("root's default: %s", got)
		}
	} else if got != "/run/user/1000/rdmaform/agent.sock" {
		t.Errorf("a user's default: %s", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got := DefaultSocket(); !strings.HasSuffix(got, "/agent.sock") {
		t.Errorf("default without XDG_RUNTIME_DIR: %s", got)
	}
}
