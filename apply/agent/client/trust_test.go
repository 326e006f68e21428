package client_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/rdmaform/rdmaform/apply/agent"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// nobody is the second user of these tests: they run as root (as CI
// does) and give a directory or a process to uid 65534.
const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test gives files and processes to uid 65534 and must run as root (CI does)")
	}
}

// trap listens at socket as a proxy would and reports whether anyone
// connected since it last asked: a unix connect completes into the
// backlog before the dialler returns, so a non-blocking accept that finds
// nothing pending proves that no connection was made.
func trap(t *testing.T, socket string) (connected func() bool) {
	t.Helper()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	raw, err := ln.(*net.UnixListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return func() bool {
		n := 0
		raw.Control(func(fd uintptr) {
			for {
				// The listener's descriptor is non-blocking: EAGAIN when
				// nothing is pending.
				c, _, err := syscall.Accept4(int(fd), syscall.SOCK_CLOEXEC)
				if err != nil {
					return
				}
				syscall.Close(c)
				n++
			}
		})
		return n > 0
	}
}

// Another user made the socket's directory first (as anyone can under
// /tmp) and listens there: the client refuses without connecting, and
// says whose the directory is.
func TestDialRefusesADirectoryOfAnotherUser(t *testing.T) {
	needRoot(t)
	socket := socketIn(t)
	dir := filepath.Dir(socket)
	os.Mkdir(dir, 0o700)
	connected := trap(t, socket)
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err == nil {
		c.Close()
	}
	if !client.IsUntrusted(err) || client.IsNotRunning(err) ||
		!strings.Contains(err.Error(), "refusing the agent socket "+socket) ||
		!strings.Contains(err.Error(), "its directory "+dir+" belongs to nobody (uid 65534), not to root") {
		t.Fatalf("Dial = %v", err)
	}
	if connected() {
		t.Error("the client connected to the other user's socket")
	}
	t.Logf("Dial: %v", err)
	// Connect neither starts an agent there nor takes it for none running.
	_, err = client.Connect(ctx, socket, client.StartOptions{Executable: "/bin/false"})
	if !client.IsUntrusted(err) {
		t.Errorf("Connect = %v", err)
	}
}

// A directory others may write to (/tmp itself, or a group's) lets them
// replace the socket: refused without connecting. One they may only read
// (0755) does not.
func TestDialRefusesADirectoryOthersMayWriteTo(t *testing.T) {
	socket := socketIn(t)
	dir := filepath.Dir(socket)
	os.Mkdir(dir, 0o700)
	connected := trap(t, socket)
	for _, mode := range []os.FileMode{0o775, 0o757, 0o777 | os.ModeSticky} {
		os.Chmod(dir, mode)
		_, err := client.Dial(context.Background(), socket)
		if !client.IsUntrusted(err) || !strings.Contains(err.Error(), fmt.Sprintf("has mode %04o", uint32(mode.Perm())|sticky(mode))) ||
			!strings.Contains(err.Error(), "chmod 0700 "+dir) {
			t.Fatalf("Dial through mode %v = %v", mode, err)
		}
		if connected() {
			t.Errorf("the client connected through a directory of mode %v", mode)
		}
	}
	// A server that answers, in a directory others may only read.
	os.Chmod(dir, 0o755)
	served := filepath.Join(dir, "served.sock")
	ln, err := net.Listen("unix", served)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus(agent.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(ln)
	defer srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, served)
	if err != nil {
		t.Fatalf("a 0755 directory of this user: %v", err)
	}
	c.Close()
}

func sticky(m os.FileMode) uint32 {
	if m&os.ModeSticky != 0 {
		return 0o1000
	}
	return 0
}

// The auto-start path does not take a directory another user made: the
// agent it starts would refuse it, but its log would be written there.
func TestStartRefusesADirectoryOfAnotherUser(t *testing.T) {
	needRoot(t)
	socket := socketIn(t)
	dir := filepath.Dir(socket)
	os.Mkdir(dir, 0o700)
	os.Chown(dir, nobody, nobody)
	_, _, err := client.Start(socket, client.StartOptions{Executable: "/bin/true"})
	if !client.IsUntrusted(err) || !strings.Contains(err.Error(), "belongs to nobody (uid 65534)") {
		t.Fatalf("Start = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a log was made in the other user's directory: %v", err)
	}
}

// The agent does not listen in a directory of another user either.
func TestAgentRefusesADirectoryOfAnotherUser(t *testing.T) {
	needRoot(t)
	socket := socketIn(t)
	dir := filepath.Dir(socket)
	os.Mkdir(dir, 0o700)
	os.Chown(dir, nobody, nobody)
	err := agent.Run(context.Background(), agent.Options{Socket: socket, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "the socket directory "+dir+" belongs to nobody (uid 65534), not to root (uid 0)") {
		t.Fatalf("agent.Run = %v", err)
	}
	if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the agent made its socket there: %v", err)
	}
}

// A process of another user answers at a socket in a directory that
// looks right (root's, 0700): SO_PEERCRED names it, and the client
// closes the connection before sending a byte. The impostor is this test
// binary run as uid 65534, listening on a socket bound here and handed to
// it, so that its credentials are the ones SO_PEERCRED reports.
func TestDialRefusesAProcessOfAnotherUser(t *testing.T) {
	needRoot(t)
	socket := socketIn(t)
	os.Mkdir(filepath.Dir(socket), 0o700)
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: socket}); err != nil {
		t.Fatal(err)
	}
	bound := os.NewFile(uintptr(fd), socket)
	// A copy of this binary that uid 65534 may run.
	binDir, err := os.MkdirTemp("", "rdmaform-impostor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(binDir) })
	os.Chmod(binDir, 0o755)
	bin := filepath.Join(binDir, "client.test")
	self, _ := os.ReadFile(os.Args[0])
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "impostor")
	cmd.ExtraFiles = []*os.File{bound}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bound.Close() // the impostor's copy is the listener now
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "listening" {
		t.Fatalf("the impostor did not start: %q %s", lines.Text(), stderr.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err == nil {
		c.Close()
		t.Fatal("Dial accepted an agent of uid 65534")
	}
	if !client.IsUntrusted(err) || client.IsNotRunning(err) ||
		!strings.Contains(err.Error(), fmt.Sprintf("the process answering there (pid %d) runs as nobody (uid 65534), not as root", cmd.Process.Pid)) {
		t.Fatalf("Dial = %v", err)
	}
	t.Logf("Dial: %v", err)
	if !lines.Scan() || lines.Text() != "received 0 bytes" {
		t.Errorf("the impostor reports %q, want \"received 0 bytes\" (%s)", lines.Text(), stderr.String())
	}
}

// impostorMain listens on the socket handed to it as fd 3, says so, and
// reports how many bytes its first client sent before closing.
func impostorMain() int {
	f := os.NewFile(3, "impostor")
	if err := syscall.Listen(int(f.Fd()), 8); err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 1
	}
	ln, err := net.FileListener(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FileListener:", err)
		return 1
	}
	fmt.Println("listening")
	c, err := ln.Accept()
	if err != nil {
		fmt.Fprintln(os.Stderr, "accept:", err)
		return 1
	}
	n, _ := io.Copy(io.Discard, c)
	fmt.Printf("received %d bytes\n", n)
	return 0
}
