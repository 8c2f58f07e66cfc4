package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/version"
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

func TestParseVersion(t *testing.T) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.String("join", "", "address")
	var out bytes.Buffer
	err := Parse(fs, []string{"--version"}, &out, "Usage: worker\n")
	if !errors.Is(err, ErrVersion) || !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(--version) = %v, want ErrVersion (an ErrHelp)", err)
	}
	want := version.String("worker") + "\n"
	if out.String() != want {
		t.Errorf("Parse(--version) printed %q, want %q", out.String(), want)
	}
	if !strings.HasPrefix(out.String(), "worker ") || !strings.Contains(out.String(), "solver ") {
		t.Errorf("version line %q does not name the program and the solver version", out.String())
	}
}

func TestParseWithoutVersion(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	n := fs.Int("n", 0, "board size")
	var out bytes.Buffer
	if err := Parse(fs, []string{"-n", "8"}, &out, "Usage: x\n"); err != nil || *n != 8 {
		t.Fatalf("Parse(-n 8) = %v, n = %d; want nil, 8", err, *n)
	}
	if out.Len() != 0 {
		t.Errorf("Parse(-n 8) printed %q, want nothing", out.String())
	}
	if err := Parse(flag.NewFlagSet("x", flag.ContinueOnError), []string{"--version=maybe"}, &out, ""); err == nil {
		t.Error("Parse(--version=maybe) = nil, want an error")
	}
}

func TestAddVersionOwnFlagSet(t *testing.T) {
	fs := flag.NewFlagSet("nqbench", flag.ContinueOnError)
	v := AddVersion(fs)
	if AddVersion(fs) != v {
		t.Error("a second AddVersion returned another Version")
	}
	if err := fs.Parse([]string{"-version"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if !v.Show(&out) || !strings.HasPrefix(out.String(), "nqbench ") {
		t.Errorf("Show after -version = %q, want the nqbench version line", out.String())
	}
}
