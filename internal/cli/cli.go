// Package cli holds what every command of the project does the same way
// with its flags: -h prints the whole help and nothing else, a bad flag
// gets one line from the caller and no help text.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses args into fs. On -h it writes usage and the flags' defaults
// to help and returns flag.ErrHelp; any other problem comes back as an error
// for the caller to print as one line.
func Parse(fs *flag.FlagSet, args []string, help io.Writer, usage string) error {
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
	return err
}
