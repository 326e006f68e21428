package tui

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Options configure a monitor.
type Options struct {
	Source Source
	// Target names what Source connects to, such as the agent's socket,
	// shown until the agent describes itself.
	Target string
	// Demo labels the screen as synthetic data.
	Demo bool
	// NoColor renders without colour or other attributes, for -no-color and
	// NO_COLOR.
	NoColor bool
	// Output is where the screen goes, and decides the colour profile when
	// NoColor is false. Nil means no colour.
	Output io.Writer

	// Now is the clock; nil means time.Now. Tests fix it.
	Now func() time.Time
	// MinBackoff and MaxBackoff bound the wait before reconnecting after the
	// source fails; the wait doubles after each failure. Defaults: 1s, 2s:
	// the agent's socket is local, so a dial costs little, and a restarted
	// agent is seen within 2s rather than after a long stale wait.
	MinBackoff, MaxBackoff time.Duration
	// Frame is the shortest interval between two batches of updates.
	// Default: 1/30 s.
	Frame time.Duration
	// Declared, when set, reads the objects the configuration and state
	// declare, so that the monitor shows those the agent does not hold
	// (see Declared). It is called off the screen's loop, at start and
	// every 10 s.
	Declared func() ([]Declared, error)
	// Taint, when set, marks an object tainted in the state, as rdmaform
	// taint does; the `t` key asks for it, confirmed with y.
	Taint func(address string) error
	// Reconnect, when set, asks the agent that holds an object (host ""
	// for the one agent, else a fabric's Host.Name) to make its
	// connection again at once, and returns what the agent did; the `r`
	// key asks for it, confirmed with y.
	Reconnect func(host, address string) (string, error)
	// Hosts, when set, are a fabric's agents, each watched on its own
	// (Source and Target are then unused): the rows carry their host,
	// grouped by host, and a host that does not answer keeps its last
	// rows, dimmed, while the others go on.
	Hosts []Host
	// Notice, when set, delivers one line the header shows from then on,
	// such as how the apply that apply -monitor watches ended.
	Notice <-chan string
}

// defaultMaxBackoff is the longest wait before reconnecting, unless
// Options say otherwise.
const defaultMaxBackoff = 2 * time.Second

// New makes a monitor's root model. Its relay starts with Init; call Close
// after the program ends.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(defaultMaxBackoff, o.MinBackoff)
	}
	if o.Frame <= 0 {
		o.Frame = time.Second / 30
	}
	st := newStyles(renderer(o))
	w := newWorld(o.Now)
	m := &Model{
		world:   w,
		relay:   newRelay(o.Source, o.MinBackoff, o.MaxBackoff, o.Frame, o.Now),
		keys:    newKeyMap(),
		notices: o.Notice,
		declare: o.Declared,
		taint:   o.Taint,
		reconn:  o.Reconnect,
	}
	if len(o.Hosts) > 0 {
		w.addHosts(o.Hosts)
		m.hostRelays = newHostRelays(o)
		m.keys.GroupHosts.SetEnabled(true)
	}
	m.header = newHeaderPane(w, st, o.Now, o.Target, o.Demo)
	m.table = newTablePane(w, st, &m.keys, o.Now)
	m.detail = newDetailPane(w, st, &m.keys, o.Now)
	m.footer = newFooterPane(st, &m.keys)
	return m
}

func renderer(o Options) *lipgloss.Renderer {
	if o.NoColor || o.Output == nil {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.Ascii)
		return r
	}
	return lipgloss.NewRenderer(o.Output)
}

// ErrInterrupted is what Run returns when a signal ended the monitor.
var ErrInterrupted = tea.ErrInterrupted

// interruptSignals end the monitor with ErrInterrupted, all alike, as the
// commands that hold the state lock stop on all three: Ctrl-C sent by kill
// (the key itself is a quit key), a kill without -9, the terminal going away.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Run shows the monitor full screen until the user quits, or a signal
// interrupts it (ErrInterrupted).
func Run(o Options, in io.Reader, out io.Writer) error {
	o.Output = out
	m := New(o)
	defer m.Close()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, interruptSignals...)
	defer signal.Stop(sigs)
	return run(m, in, out, sigs)
}

func run(m *Model, in io.Reader, out io.Writer, sigs <-chan os.Signal) error {
	// Bubble Tea's own handler ends the program quietly on SIGTERM, as if
	// the user had quit.
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen(), tea.WithoutSignalHandler())
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			p.Send(tea.InterruptMsg{})
		case <-done:
		}
	}()
	_, err := p.Run()
	return err
}
