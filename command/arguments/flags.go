// Package arguments parses each command's command line into a plain struct
// of its options (Plan, Apply, ...), as Terraform's internal/command/arguments
// does, so that a command's options are tested without running it.
//
// A Parse function never prints: it returns the options and the
// diagnostics, every problem of the command line at once, in the words the
// commands have always used; the command shows them.
package arguments

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// newFlagSet returns a FlagSet that reports nothing itself: its errors
// become diagnostics.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs, reporting every bad option rather than
// the first (Go's flag package stops there, so parsing resumes after it).
// help is -help (or -h) seen before any error: the command prints its help
// and nothing else. name is the command's, for the pointer to its help.
//
// After a bad option, the arguments are not counted: the option may have
// taken one as its value, or left its value as one. A Parse function
// judges them only when diags is empty.
func parseFlags(fs *flag.FlagSet, name string, args []string) (help bool, diags Diagnostics) {
	record(fs)
	var errs []string
	for {
		err := fs.Parse(args)
		switch {
		case err == nil:
			if len(errs) > 0 {
				diags = diags.Append(errDiag("Failed to parse command-line flags",
					strings.Join(errs, "\n")+"\n\nFor more help on using this command, run:\n  rdmaform "+name+" -help"))
			}
			return false, diags
		case err == flag.ErrHelp && len(errs) == 0:
			return true, nil
		case err != flag.ErrHelp:
			errs = append(errs, err.Error())
		}
		// The flag package has consumed the bad option: go on after it.
		args = fs.Args()
	}
}

// parseInterspersed is parseFlags for a command whose options may come
// before or after its arguments: it returns the arguments in order. After
// "--" everything is an argument, also what starts with "-".
func parseInterspersed(fs *flag.FlagSet, name string, args []string) (positional []string, help bool, diags Diagnostics) {
	for {
		help, d := parseFlags(fs, name, args)
		if help {
			return nil, true, nil
		}
		diags = append(diags, d...)
		rest := fs.Args()
		if len(rest) == 0 || len(d) > 0 {
			return append(positional, rest...), false, diags
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), false, diags
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// stringsFlag is a repeatable string option.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// durationFlag is a duration option whose bad value is explained (Go's
// flag package says only "parse error").
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: write a number with a unit, such as 5s, 2m or 1h30m", s)
	}
	if v < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*d = durationFlag(v)
	return nil
}

// countFlag is a whole-number option of at least 1 whose bad value is
// explained (Go's flag package says only "parse error").
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("%q is not a whole number of at least 1", s)
	}
	*c = countFlag(n)
	return nil
}

// InputDefault is -input's default: false when RDMAFORM_INPUT is "false"
// or "0", as Terraform's TF_INPUT.
func InputDefault() bool {
	v := os.Getenv("RDMAFORM_INPUT")
	return v != "false" && v != "0"
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	return arg == "-help" || arg == "--help" || arg == "-h" || arg == "--h"
}

// acceptNoColor adds -no-color to a command that prints no colour: users
// pass it to every command, as Terraform's accept it.
func acceptNoColor(fs *flag.FlagSet) {
	fs.Bool("no-color", false, "Accepted for Terraform compatibility: this command prints no colour.")
}
