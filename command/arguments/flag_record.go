package arguments

import (
	"flag"
	"sync"
	"sync/atomic"
)

// recorder collects the options of the flag sets parsed while FlagsOf runs,
// so that shell completion offers exactly what each command accepts.
var recorder struct {
	run   sync.Mutex // one FlagsOf at a time
	on    atomic.Bool
	mu    sync.Mutex
	flags []*flag.Flag
}

// FlagsOf runs run, which parses one command's line (the command run with
// -help), and returns the options of every flag set it parsed.
func FlagsOf(run func()) []*flag.Flag {
	recorder.run.Lock()
	defer recorder.run.Unlock()
	recorder.on.Store(true)
	run()
	recorder.on.Store(false)
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	flags := recorder.flags
	recorder.flags = nil
	return flags
}

// record notes fs's options when FlagsOf asks for them.
func record(fs *flag.FlagSet) {
	if !recorder.on.Load() {
		return
	}
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	fs.VisitAll(func(f *flag.Flag) { recorder.flags = append(recorder.flags, f) })
}
