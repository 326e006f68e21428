package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// StartOptions say how Connect starts an agent when none answers.
type StartOptions struct {
	// Executable is the rdmaform binary to run as `rdmaform agent`; ""
	// means this process's own executable.
	Executable string
	// LogFile is the agent's log; "" means agent.log beside the socket.
	LogFile string
	// Notify receives the one-line notice that an agent was started.
	Notify io.Writer
	// Wait bounds how long the new agent may take to answer (default 15 s).
	Wait time.Duration
	// MayStart, when set, is asked before an agent is started; false
	// leaves none started and Connect returns the dial's error. It may
	// block: a command that dials early, while it still reads its state,
	// starts an agent only once the state says this host may act.
	MayStart func() bool
}

// Connect dials the agent at socket and, when none answers, starts one in
// the background (a new session, detached from the terminal), waits until
// it answers and tells Notify its pid, socket and log file.
func Connect(ctx context.Context, socket string, opts StartOptions) (*Client, error) {
	c, err := Dial(ctx, socket)
	if err == nil || !IsNotRunning(err) {
		return c, err
	}
	if opts.MayStart != nil && !opts.MayStart() {
		return nil, err
	}
	pid, logFile, exited, err := start(socket, opts)
	if err != nil {
		return nil, err
	}
	wait := opts.Wait
	if wait <= 0 {
		wait = 15 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		c, err = Dial(ctx, socket)
		if err == nil {
			break
		}
		if IsUntrusted(err) {
			return nil, err
		}
		select {
		case <-exited:
			why := lastFatal(logFile, pid)
			if why == "" {
				why = "see its log " + logFile
			}
			return nil, fmt.Errorf("started an agent (pid %d) for %s, but it stopped at once: %s", pid, socket, why)
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("started an agent (pid %d) but it did not answer at %s within %v; see its log %s: %w", pid, socket, wait, logFile, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if opts.Notify != nil {
		fmt.Fprintf(opts.Notify, "Started an rdmaform agent in the background: pid %d, socket %s, log %s\n", pid, socket, logFile)
	}
	c.StartedPID = pid
	return c, nil
}

// Start runs `rdmaform agent -socket=SOCKET -log=LOG` in the background and
// returns its pid and log file without waiting for it to answer.
func Start(socket string, opts StartOptions) (int, string, error) {
	pid, logFile, _, err := start(socket, opts)
	return pid, logFile, err
}

// start is Start that also returns a channel closed when the agent exits
// (while this process runs).
func start(socket string, opts StartOptions) (int, string, <-chan struct{}, error) {
	exe := opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return 0, "", nil, fmt.Errorf("finding rdmaform's executable to start an agent: %w", err)
		}
	}
	logFile := LogFileFor(socket, opts.LogFile)
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return 0, "", nil, fmt.Errorf("creating the agent's socket directory: %w", err)
	}
	// MkdirAll takes a directory another user made first as it is: the
	// agent would refuse it too, but its log would then be theirs.
	if err := checkDir(socket); err != nil {
		return 0, "", nil, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, "", nil, err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, "agent", "-socket="+socket, "-log="+logFile)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.Env = agentEnv(os.Environ())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, "", nil, fmt.Errorf("starting an agent (%s agent): %w", exe, err)
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reap it should it exit while this process runs
	return pid, logFile, exited, nil
}

// LogFileFor is the agent's log file: logFile, or agent.log beside the
// socket.
func LogFileFor(socket, logFile string) string {
	if logFile != "" {
		return logFile
	}
	return filepath.Join(filepath.Dir(socket), "agent.log")
}

// LogFatal appends why the agent stopped to its log, as a JSON record
// like its others (best effort: the log may be what failed). othersRun
// says that another agent serves the socket and goes on: the record is a
// warning then, so that its log does not read as if it had failed.
func LogFatal(logFile string, err error, othersRun bool) {
	f, ferr := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	level := "ERROR"
	if othersRun {
		level = "WARN"
	}
	rec, _ := json.Marshal(map[string]any{"time": time.Now().Format(time.RFC3339Nano), "level": level, "msg": fatalMsg, "err": err.Error(), "pid": os.Getpid()})
	f.Write(append(rec, '\n'))
}

// fatalMsg is the message of the record LogFatal writes, with the pid of
// the process that could not run as an agent.
const fatalMsg = "an agent process could not run"

// lastFatal is the reason the LogFatal record of the agent pid gives, or
// "" (the log is appended to by every agent that used it).
func lastFatal(logFile string, pid int) string {
	raw, err := os.ReadFile(logFile)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var rec struct {
			Msg, Err string
			Pid      int
		}
		if json.Unmarshal([]byte(lines[i]), &rec) == nil && rec.Msg == fatalMsg && rec.Pid == pid {
			return rec.Err
		}
	}
	return ""
}

// agentEnv is the environment of an agent the CLI starts: the CLI's,
// without the options RDMAFORM_CLI_ARGS adds to the command that started
// it, which the agent's own command line would get and refuse.
func agentEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "RDMAFORM_CLI_ARGS") {
			out = append(out, kv)
		}
	}
	return out
}

// Stop asks the agent to shut down and waits until it released its socket
// and lock file (SOCKET.lock), which it does last.
func (c *Client) Stop(ctx context.Context) error {
	if _, err := c.Shutdown(ctx, &pb.ShutdownRequest{}); err != nil {
		return fmt.Errorf("asking the agent at %s to stop: %w", c.Socket, Explain(err))
	}
	for {
		_, err1 := os.Stat(c.Socket)
		_, err2 := os.Stat(c.Socket + ".lock")
		if os.IsNotExist(err1) && os.IsNotExist(err2) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the agent at %s did not stop: %w", c.Socket, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
