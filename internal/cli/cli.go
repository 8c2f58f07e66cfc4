// Package cli holds what every command of the project does the same way
// with its flags: -h prints the whole help and nothing else, --version
// prints one line naming the build, a bad flag gets one line from the
// caller and no help text.
//
//	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
//	... define flags ...
//	if err := cli.Parse(fs, args, stdout, usageHead); err != nil {
//		if errors.Is(err, flag.ErrHelp) { // -h or --version: answered, exit 0
//			return 0
//		}
//		fmt.Fprintf(stderr, "worker: %v\n", err)
//		return 2
//	}
//
// A command that parses its flags itself calls AddVersion before fs.Parse
// and Show after it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/nqueens/nqueens/internal/version"
)

// ErrVersion is what Parse returns after printing --version. It wraps
// flag.ErrHelp, so a command that exits 0 on -h exits 0 on --version too.
var ErrVersion = fmt.Errorf("version shown: %w", flag.ErrHelp)

// Parse parses args into fs, with a --version flag added when fs has none.
// On -h it writes usage and the flags' defaults to help and returns
// flag.ErrHelp; on --version it writes version.String(fs.Name()) to help
// and returns ErrVersion; any other problem comes back as an error for the
// caller to print as one line.
func Parse(fs *flag.FlagSet, args []string, help io.Writer, usage string) error {
	v := AddVersion(fs)
	// flag calls fs.Usage and writes to fs's output on every error; both are
	// silenced so that only -h prints help.
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(help, usage)
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if err == nil && v.Show(help) {
		return ErrVersion
	}
	return err
}

// Version is the --version flag of one FlagSet.
type Version struct {
	name string
	set  bool
}

// AddVersion defines --version on fs (once: a second call returns a Version
// that only reads the first one's flag) and returns it for Show.
func AddVersion(fs *flag.FlagSet) *Version {
	if f := fs.Lookup("version"); f != nil {
		if v, ok := f.Value.(*versionValue); ok {
			return v.v
		}
		return &Version{name: fs.Name()} // the command has its own --version
	}
	v := &Version{name: fs.Name()}
	fs.Var(&versionValue{v}, "version", "print the version (build revision, solver version) and exit")
	return v
}

// Show writes the version line to w and reports true when --version was
// given; otherwise it writes nothing and reports false.
func (v *Version) Show(w io.Writer) bool {
	if !v.set {
		return false
	}
	fmt.Fprintln(w, version.String(v.name))
	return true
}

// versionValue is --version as a boolean flag.Value.
type versionValue struct{ v *Version }

func (b *versionValue) String() string {
	if b == nil || b.v == nil || !b.v.set {
		return "false"
	}
	return "true"
}

func (b *versionValue) Set(s string) error {
	switch s {
	case "true", "1":
		b.v.set = true
	case "false", "0":
		b.v.set = false
	default:
		return fmt.Errorf("--version takes no value")
	}
	return nil
}

// IsBoolFlag lets --version stand alone, without =true.
func (b *versionValue) IsBoolFlag() bool { return true }

// LogTimeFormat is the time of every log line (hclog's TimeFormat, text
// and JSON alike): RFC 3339 with milliseconds, since leases and heartbeats
// can be 100 ms apart and lines of one second run together.
const LogTimeFormat = "2006-01-02T15:04:05.000Z07:00"
