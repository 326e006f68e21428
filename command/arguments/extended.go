package arguments

import (
	"flag"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// State is the state options of commands that write it: -lock and
// -lock-timeout.
type State struct {
	Lock        bool          // false: -lock=false
	LockTimeout time.Duration // -lock-timeout
}

func (s *State) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.Lock, "lock", true, "Lock the state while the command runs.")
	fs.Var((*durationFlag)(&s.LockTimeout), "lock-timeout", "Duration to retry a state lock.")
}

// Vars is -var and -var-file, in command-line order.
type Vars struct {
	Args config.VarArgs
}

func (v *Vars) register(fs *flag.FlagSet) { v.Args.Register(fs) }

// Empty reports whether no variable was set.
func (v *Vars) Empty() bool { return len(v.Args) == 0 }

// View is how a command prints: -json, -no-color, -compact-warnings.
type View struct {
	JSON            bool
	NoColor         bool
	CompactWarnings bool
}

// Operation is what plan, apply and destroy share about the plan to make.
type Operation struct {
	Targets     []addrs.Instance // -target
	Replace     []addrs.Instance // -replace
	Destroy     bool             // -destroy, or the destroy command
	Refresh     bool             // false: -refresh=false
	RefreshOnly bool             // -refresh-only
	Parallelism int              // -parallelism (apply.DefaultParallelism)
	// ParallelismSet: -parallelism was given, so that it bounds the
	// connections being made, not only the calls that start them.
	ParallelismSet bool
	// ForImport: the import command's plan (see planner.Options.ForImport).
	ForImport bool

	targets, replace stringsFlag
}

func (o *Operation) register(fs *flag.FlagSet) {
	fs.Var(&o.targets, "target", "")
	fs.Var(&o.replace, "replace", "")
	fs.BoolVar(&o.Refresh, "refresh", true, "")
	fs.BoolVar(&o.RefreshOnly, "refresh-only", false, "")
	o.Parallelism = apply.DefaultParallelism
	fs.Var((*countFlag)(&o.Parallelism), "parallelism", "")
}

// parse reads -target and -replace and refuses the options that contradict
// each other, once the flags are parsed.
func (o *Operation) parse(fs *flag.FlagSet) Diagnostics {
	fs.Visit(func(fl *flag.Flag) { o.ParallelismSet = o.ParallelismSet || fl.Name == "parallelism" })
	var diags Diagnostics
	if o.RefreshOnly {
		switch {
		case o.Destroy:
			diags = diags.Append(errDiag("Incompatible plan options", "The -destroy option cannot be used together with -refresh-only."))
		case !o.Refresh:
			diags = diags.Append(errDiag("Incompatible refresh options", "It doesn't make sense to use -refresh-only at the same time as -refresh=false,\nbecause rdmaform would have nothing to do."))
		case len(o.replace) > 0:
			diags = diags.Append(errDiag("Incompatible plan options", "The -replace option cannot be used together with -refresh-only: a refresh-only\nplan changes no object."))
		}
	}
	parse := func(opt string, vals []string) []addrs.Instance {
		var out []addrs.Instance
		for _, v := range vals {
			a, err := addrs.ParseInstance(v)
			if err != nil {
				diags = diags.Append(errDiag("Invalid "+opt+" address", err.Error()))
				continue
			}
			out = append(out, a)
		}
		return out
	}
	o.Targets, o.Replace = parse("-target", o.targets), parse("-replace", o.replace)
	return diags
}
