package command

import (
	"context"
	"fmt"
	"sync"

	"github.com/rdmaform/rdmaform/config"
)

// earlyDials are the remote agents a plan started reaching as soon as
// the configuration's agent blocks were evaluated (config.Loader's
// AgentsEvaluated), while the objects' blocks still were: with many
// agents the TLS handshakes, and the agents' processes answering them,
// take a good part of a no-change plan, which the configuration's
// evaluation would otherwise precede. Which agents the run needs is
// decided as before (agentsNeeded); connect hands over the dial of a
// needed one, and close ends those no one took, unreported: an agent
// no object is on may be down.
type earlyDials struct {
	remote remoteConnectFunc
	mu     sync.Mutex
	dials  map[string]*earlyDial
}

type earlyDial struct {
	agent *config.Agent
	done  chan struct{}
	conn  *fabricConn
	err   error
	taken bool
}

func newEarlyDials(remote remoteConnectFunc) *earlyDials {
	return &earlyDials{remote: remote, dials: map[string]*earlyDial{}}
}

// start dials every agent, each within agentTimeout, at once.
func (e *earlyDials) start(agents map[string]*config.Agent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, a := range agents {
		d := &earlyDial{agent: a, done: make(chan struct{})}
		e.dials[k] = d
		go func() {
			defer close(d.done)
			ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
			defer cancel()
			d.conn, d.err = e.remote(ctx, a)
			if d.err == nil && ctx.Err() != nil {
				d.err = fmt.Errorf("no answer within %s", agentTimeout)
			}
		}()
	}
}

// connect is the remote connector of the run: an agent dialled early, as
// the configuration now describes it, is handed over; any other, or one
// whose early dial failed, is dialled now.
func (e *earlyDials) connect(ctx context.Context, a *config.Agent) (*fabricConn, error) {
	e.mu.Lock()
	d := e.dials[a.Key]
	if d != nil && (d.taken || d.agent != a) {
		d = nil
	}
	if d != nil {
		d.taken = true
	}
	e.mu.Unlock()
	if d == nil {
		return e.remote(ctx, a)
	}
	select {
	case <-d.done:
		if d.err != nil {
			// Its time began before the configuration was loaded, on a
			// CPU the evaluation kept busy: the agent is given its full
			// time again, as without the early dial.
			return e.remote(ctx, a)
		}
		return d.conn, d.err
	case <-ctx.Done():
		go func() { // the dial ends within agentTimeout: its connection is not kept
			<-d.done
			if d.conn != nil && d.conn.Close != nil {
				d.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// close ends the early dials no one took, once done. It is idempotent,
// and does nothing on nil.
func (e *earlyDials) close() {
	if e == nil {
		return
	}
	e.mu.Lock()
	var left []*earlyDial
	for k, d := range e.dials {
		if !d.taken {
			d.taken = true
			left = append(left, d)
		}
		delete(e.dials, k)
	}
	e.mu.Unlock()
	for _, d := range left {
		go func() {
			<-d.done
			if d.conn != nil && d.conn.Close != nil {
				d.conn.Close()
			}
		}()
	}
}
