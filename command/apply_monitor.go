package command

import (
	"bytes"
	"fmt"
	"os"
	"sync"

	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/tui"
)

// executeWithMonitor is apply -monitor: the plan is carried out as execute
// does, while the monitor shows the agent's objects changing. Apply's own
// lines are kept and printed once the user leaves the monitor (q) and apply
// has finished, so the terminal ends with the usual report.
func executeWithMonitor(se *session, p *planner.Plan, parallelism int, destroy, color, noColor bool) int {
	var transcript lockedBuffer
	quiet := *se
	quiet.s.Out, quiet.s.Err = &transcript, &transcript
	if _, human := se.view.(*humanOperation); human {
		// The human view prints through its session's streams: the
		// quiet copy's, or the report would go under the monitor.
		quiet.view = &humanOperation{se: &quiet}
	}
	result := make(chan int, 1)
	notice := make(chan string, 1)
	go func() {
		code := execute(&quiet, p, parallelism, destroy, color)
		result <- code
		notice <- outcomeNotice(destroy, code)
	}()

	socket := client.ChooseSocket("", se.agentSocket())
	err := tui.Run(tui.Options{
		Source:  agentSource{socket: socket, names: namesOf(se.prior)},
		Target:  socket,
		NoColor: noColor || os.Getenv("NO_COLOR") != "",
		Notice:  notice,
	}, se.s.In, se.s.Out)
	if err != nil {
		se.s.showWarning(fmt.Sprintf("the monitor stopped: %v", err), "")
	}
	var code int
	select {
	case code = <-result:
	default:
		fmt.Fprintln(se.s.Out, "Waiting for the apply to finish...")
		code = <-result
	}
	se.s.Out.Write(transcript.Bytes())
	return code
}

// outcomeNotice is the monitor's line once apply (or destroy) has ended
// with exit status code: the report waits for the user to leave.
func outcomeNotice(destroy bool, code int) string {
	verb := "apply"
	if destroy {
		verb = "destroy"
	}
	if code == 0 {
		return verb + " complete — q shows its report"
	}
	return verb + " failed — q shows its report"
}

// lockedBuffer is a bytes.Buffer that apply's workers may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}
