package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.Int("n", 0, "board size")
		return fs
	}
	var help bytes.Buffer
	if err := Parse(newFS(), []string{"-h"}, &help, "Usage: x\n"); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	if got := help.String(); !strings.HasPrefix(got, "Usage: x\n") || strings.Count(got, "board size") != 1 {
		t.Errorf("help for -h = %q, want the usage once and every flag once", got)
	}
	help.Reset()
	err := Parse(newFS(), []string{"-bogus"}, &help, "Usage: x\n")
	if err == nil || !strings.Contains(err.Error(), "-bogus") {
		t.Errorf("Parse(-bogus) = %v, want an error naming the flag", err)
	}
	if help.Len() != 0 {
		t.Errorf("a bad flag printed help %q, want none", help.String())
	}
}
