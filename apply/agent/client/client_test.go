package client_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// TestMain lets this test binary stand in for `rdmaform agent`, so that
// Connect can start it in the background.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		fs := flag.NewFlagSet("agent", flag.ExitOnError)
		socket := fs.String("socket", "", "")
		logFile := fs.String("log", "", "")
		fs.Parse(os.Args[2:])
		if err := agent.Run(context.Background(), agent.Options{Socket: *socket, LogFile: *logFile}); err != nil {
			client.LogFatal(client.LogFileFor(*socket, *logFile), err, errors.Is(err, agent.ErrAgentRunning)) // as rdmaform agent does
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == "impostor" {
		os.Exit(impostorMain())
	}
	os.Exit(m.Run())
}

// runAgent serves an agent in this process until the test ends.
func runAgent(t *testing.T, socket string) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: socket, Version: "test", Stderr: &lockedWriter{w: &stderr},
			Ready: func(*pb.InfoResponse) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("agent.Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not get ready")
	}
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func socketIn(t *testing.T) string {
	return filepath.Join(t.TempDir(), "rdmaform", "agent.sock")
}

func dial(t *testing.T, socket string) *client.Client {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSocketModesHealthAndInfo(t *testing.T) {
	socket := socketIn(t)
	stop := runAgent(t, socket)
	for path, want := range map[string]os.FileMode{filepath.Dir(socket): 0o700, socket: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", path, fi.Mode().Perm(), want)
		}
	}
	c := dial(t, socket)
	info, err := c.Info(context.Background(), &pb.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Pid != int32(os.Getpid()) || info.Socket != socket || info.Version != "test" {
		t.Errorf("info %v", info)
	}
	if _, err := c.Delete(context.Background(), &pb.DeleteRequest{Address: "endpoint.gone"}); err != nil {
		t.Errorf("deleting what is gone: %v", err)
	}
	_, err = c.CreateProtectionDomain(context.Background(), &pb.CreateProtectionDomainRequest{
		Address: "protection_domain.p", Token: "t", Spec: &pb.ProtectionDomainSpec{Device: "nosuchdev9"}})
	if err == nil || !strings.Contains(err.Error(), "protection_domain.p") {
		t.Errorf("a PD on a missing device: %v", err)
	}
	_, err = c.CreateEndpoint(context.Background(), &pb.CreateEndpointRequest{Address: "endpoint.e", Token: "t",
		Spec: &pb.EndpointSpec{Address: "10.0.0.1", Port: 0}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "port 0") {
		t.Errorf("an endpoint without a port: %v", err)
	}
	_, err = c.CreateListener(context.Background(), &pb.CreateListenerRequest{Address: "listener.l/conn/1", Token: "t",
		Spec: &pb.ListenerSpec{Address: "10.0.0.1", Port: 7000}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a reserved address: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestSecondAgentIsRefused(t *testing.T) {
	socket := socketIn(t)
	runAgent(t, socket)
	err := agent.Run(context.Background(), agent.Options{Socket: socket, Stderr: &bytes.Buffer{}})
	if !errors.Is(err, agent.ErrAgentRunning) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) ||
		strings.HasSuffix(err.Error(), "resource temporarily unavailable") {
		t.Fatalf("second agent: %v", err)
	}
	t.Logf("second agent: %v", err)
	dial(t, socket) // the first still answers
}

func TestStaleSocketIsRemoved(t *testing.T) {
	socket := socketIn(t)
	os.MkdirAll(filepath.Dir(socket), 0o700)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // what a crashed agent leaves
	if _, err := client.Dial(context.Background(), socket); !client.IsNotRunning(err) {
		t.Fatalf("dialling a stale socket: %v", err)
	}
	runAgent(t, socket)
	dial(t, socket)
}

func TestLooseSocketDirectoryIsRefused(t *testing.T) {
	socket := socketIn(t)
	os.MkdirAll(filepath.Dir(socket), 0o755)
	os.Chmod(filepath.Dir(socket), 0o755)
	err := agent.Run(context.Background(), agent.Options{Socket: socket, Stderr: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "must be 0700") {
		t.Fatalf("a 0755 directory: %v", err)
	}
}

// An agent Connect starts that stops at once is reported with its reason
// at once, not after the wait for it to answer.
func TestConnectReportsWhyTheAgentItStartedStopped(t *testing.T) {
	socket := socketIn(t)
	os.MkdirAll(filepath.Dir(socket), 0o700)
	os.WriteFile(socket, nil, 0o600) // no agent answers there, and none can listen
	start := time.Now()
	_, err := client.Connect(context.Background(), socket, client.StartOptions{Executable: os.Args[0], Wait: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "but it stopped at once: "+socket+" exists and is not a socket") {
		t.Fatalf("Connect: %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the failure took %v to report", took)
	}
}

func TestConnectStartsAnAgentAndStopStopsIt(t *testing.T) {
	socket := socketIn(t)
	var notice bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, socket, client.StartOptions{Executable: os.Args[0], Notify: &notice})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	info, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Started an rdmaform agent in the background: pid " + strconv.Itoa(int(info.Pid)) + ", socket " + socket +
		", log " + filepath.Join(filepath.Dir(socket), "agent.log")
	if !strings.Contains(notice.String(), want) || info.Pid == int32(os.Getpid()) {
		t.Errorf("notice %q, want %q", notice.String(), want)
	}
	notice.Reset()
	c2, err := client.Connect(ctx, socket, client.StartOptions{Executable: os.Args[0], Notify: &notice})
	if err != nil {
		t.Fatal(err)
	}
	c2.Close()
	if notice.Len() != 0 {
		t.Errorf("a second Connect started another agent: %q", notice.String())
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	logText, _ := os.ReadFile(filepath.Join(filepath.Dir(socket), "agent.log"))
	if !strings.Contains(string(logText), `"msg":"agent stopped"`) {
		t.Errorf("the log lacks the stop:\n%s", logText)
	}
}

func TestConnectDoesNotQuoteAnEarlierAgentsFailure(t *testing.T) {
	socket := socketIn(t)
	os.MkdirAll(filepath.Dir(socket), 0o700)
	client.LogFatal(filepath.Join(filepath.Dir(socket), "agent.log"), errors.New("an earlier run's reason"), false)
	_, err := client.Connect(context.Background(), socket, client.StartOptions{Executable: "/bin/false", Wait: time.Minute})
	if err == nil || strings.Contains(err.Error(), "earlier run") || !strings.Contains(err.Error(), "see its log") {
		t.Fatalf("Connect: %v", err)
	}
}
