// Package cmtime runs rdma-core's cmtime, the reference every rdmaform
// connection benchmark compares itself with in the same run: a server
// (cmtime -b) and a client (cmtime -s) establishing n RC connections.
package cmtime

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// EstablishSteps are the client's steps from nothing to established.
var EstablishSteps = []string{"create id", "resolve addr", "resolve route", "create qp", "connect"}

// Result is one cmtime run.
type Result struct {
	// Steps maps each step cmtime reports ("create id", "connect",
	// "disconnect", "destroy", ...) to its total time for all connections.
	Steps map[string]time.Duration
	// CPU is the user and system time of client and server together.
	CPU time.Duration
}

// Establish is the sum of EstablishSteps: from nothing to n established
// connections.
func (r Result) Establish() time.Duration {
	var total time.Duration
	for _, s := range EstablishSteps {
		total += r.Steps[s]
	}
	return total
}

// Summary names each establishing step and its time.
func (r Result) Summary() string {
	var parts []string
	for _, s := range EstablishSteps {
		parts = append(parts, fmt.Sprintf("%s %d ms", s, r.Steps[s].Milliseconds()))
	}
	return strings.Join(parts, ", ")
}

// Run starts a cmtime server on addr:port, runs the client for n
// connections against it, stops the server (it never exits by itself) and
// parses the client's table.
func Run(ctx context.Context, addr, port string, n int) (Result, error) {
	server := exec.CommandContext(ctx, "cmtime", "-b", addr, "-p", port, "-c", strconv.Itoa(n))
	if err := server.Start(); err != nil {
		return Result{}, fmt.Errorf("cmtime server: %w (is rdmacm-utils installed?)", err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			server.Process.Kill()
			server.Wait()
			stopped = true
		}
	}
	defer stop()
	time.Sleep(500 * time.Millisecond) // let the server listen
	client := exec.CommandContext(ctx, "cmtime", "-s", addr, "-p", port, "-c", strconv.Itoa(n))
	out, err := client.CombinedOutput()
	if err != nil {
		return Result{}, fmt.Errorf("cmtime client: %w\n%s", err, out)
	}
	stop()
	r := Result{
		Steps: parse(out),
		CPU: client.ProcessState.UserTime() + client.ProcessState.SystemTime() +
			server.ProcessState.UserTime() + server.ProcessState.SystemTime(),
	}
	for _, s := range EstablishSteps {
		if _, ok := r.Steps[s]; !ok {
			return r, fmt.Errorf("cmtime's output lacks the %q step:\n%s", s, out)
		}
	}
	return r, nil
}

// parse reads cmtime's table: "step name : total-ms max-ms min-us us/conn".
func parse(out []byte) map[string]time.Duration {
	steps := map[string]time.Duration{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if ms, err := strconv.ParseFloat(f[0], 64); err == nil {
			steps[strings.TrimSpace(name)] = time.Duration(ms * float64(time.Millisecond))
		}
	}
	return steps
}
