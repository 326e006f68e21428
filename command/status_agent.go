package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/tui"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// What status and monitor, which show an agent and never start one, say
// when it does not answer or goes away: in a user's words, not gRPC's
// ("rpc error: code = Unavailable desc = ...").

// dialToShow connects status or monitor (cmd) to the agent at socket. When
// that fails it says why through s and returns nil.
func dialToShow(cmd, socket string, s Meta) *client.Client {
	// A path that is there but no socket would take the dial's whole
	// timeout to fail, and the advice to start an agent there is wrong.
	if st, err := os.Stat(socket); err == nil && st.Mode()&os.ModeSocket == 0 {
		what := "not a socket"
		if st.IsDir() {
			what = "a directory, not a socket"
		}
		s.showError(fmt.Sprintf("%s is %s", socket, what), fmt.Sprintf("-agent (or the rdmaform { agent { socket } } setting) names the agent's socket,\nsuch as %s.", client.DefaultSocket()))
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	c, err := client.Dial(ctx, socket)
	cancel()
	switch {
	case client.IsNotRunning(err):
		// The transport's words (dial unix ...: no such file) say
		// nothing more to a user than that.
		s.showError("no rdmaform agent answers at "+socket, fmt.Sprintf(
			"%s shows an agent; it does not start one. Start one with\n`rdmaform agent -socket=%s`, or let plan or apply start it.", cmd, socket))
		return nil
	case err != nil:
		s.showErrorText(agentError(err).Error())
		return nil
	}
	return c
}

// agentError rewords an error of the agent's client: tui.ErrAgentStopped
// when the agent said it stopped, tui.ErrAgentGone when the connection
// closed without a word, and otherwise the error in client.Words (still
// wrapping it, so errors.As finds client.NotRunning). It is how the
// commands say the agent's errors.
func agentError(err error) error {
	var notYours *client.NotYours
	var notRunning *client.NotRunning
	switch {
	case err == nil || errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &notYours):
		return reworded{strings.TrimSuffix(notYours.Error(), ": "+client.Words(notYours.Err)), err}
	case errors.As(err, &notRunning):
		return reworded{"no rdmaform agent answers at " + notRunning.Socket, err}
	}
	s, ok := status.FromError(err)
	switch {
	case !ok:
		return err
	case s.Code() == codes.Unavailable && s.Message() == tui.ErrAgentStopped.Error():
		return tui.ErrAgentStopped
	case s.Code() == codes.Unavailable:
		return tui.ErrAgentGone
	}
	return reworded{client.Words(err), err}
}

// reworded is an error shown in other words than its cause's.
type reworded struct {
	msg string
	err error
}

func (r reworded) Error() string { return r.msg }
func (r reworded) Unwrap() error { return r.err }
