package state

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tests that need other processes re-execute the test binary with
// RDMAFORM_STATE_CHILD set; TestMain then runs the named child instead of
// the tests.
const childEnv = "RDMAFORM_STATE_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode, os.Args[len(os.Args)-1]); err != nil {
			fmt.Println("ERROR", strings.ReplaceAll(err.Error(), "\n", "\\n"))
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childCommand returns a command running child mode with arg.
func childCommand(t testing.TB, mode, arg string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$", arg)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
	return cmd
}

func runChild(mode, arg string) error {
	switch mode {
	case "crash-persist":
		return childCrashPersist(arg)
	case "crash-journal":
		return childCrashJournal(arg)
	case "race":
		return childRace(arg)
	case "hold-temp":
		return childHoldTemp(arg)
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// openSpec opens the manager a child was told to use: "local:PATH" or
// "etcd:ENDPOINT:PREFIX".
func openSpec(spec string) (Full, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "local":
		return NewFilesystem(LocalOptions{Path: rest}), nil
	case "etcd":
		ep, prefix, _ := strings.Cut(rest, "|")
		return NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{ep}, Prefix: prefix, DialTimeout: 5 * time.Second, LockTTL: 5 * time.Second})
	}
	return nil, fmt.Errorf("bad spec %q", spec)
}

// childRace locks (waiting up to the timeout in RDMAFORM_LOCK_TIMEOUT),
// increments the "counter" output, persists and unlocks, printing
// "LOCKED id", "SERIAL n" and "COUNTER n", or "LOSER" and the lock error.
func childRace(spec string) error {
	m, err := openSpec(spec)
	if err != nil {
		return err
	}
	defer m.Close()
	timeout, _ := time.ParseDuration(os.Getenv("RDMAFORM_LOCK_TIMEOUT"))
	id, err := LockWithTimeout(context.Background(), m, NewLockInfo("OperationTypeApply"), timeout)
	if err != nil {
		fmt.Printf("LOSER %s\n", strings.ReplaceAll(err.Error(), "\n", "\\n"))
		return nil
	}
	fmt.Printf("LOCKED %s\n", id)
	defer m.Unlock(id)
	if err := m.RefreshState(); err != nil {
		return err
	}
	s := m.State()
	if s == nil {
		s = New()
	}
	n := 0
	if o := s.Outputs["counter"]; o != nil {
		n, _ = strconv.Atoi(string(o.Value))
	}
	n++
	s.SetOutput("counter", &Output{Value: []byte(strconv.Itoa(n))})
	if err := m.WriteState(s); err != nil {
		return err
	}
	if err := m.PersistState(); err != nil {
		return err
	}
	fmt.Printf("SERIAL %d\nCOUNTER %d\n", m.State().Serial, n)
	return nil
}

// readLines collects a child's stdout lines until it exits.
func readLines(cmd *exec.Cmd) (func() []string, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	done := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		done <- lines
	}()
	return func() []string { return <-done }, nil
}
