package doccheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Runner runs the commands of examples.
type Runner struct {
	// Bin maps a command's name to its executable: "go run ./cmd/NAME" and
	// "bin/NAME" in an example run Bin[NAME].
	Bin map[string]string
	// Dir is the working directory, shared by the commands of one file so
	// that one can read what an earlier one wrote.
	Dir string
	// Timeout bounds one command: an example is small by design, and a
	// hung one must fail the check rather than the whole test run.
	Timeout time.Duration
}

// exitRE matches the "# exit N" that ends a command expected to fail.
var exitRE = regexp.MustCompile(`#\s*exit\s+(\d+)\s*$`)

// binRE matches the spellings of a command of this module in an example.
var binRE = regexp.MustCompile(`(^|[\s|;&(])(?:go run \./cmd/|bin/)([A-Za-z0-9_-]+)`)

// Run runs command in bash and returns what it wrote, stdout then stderr.
// An exit status other than the one the command's "# exit N" comment
// names (0 without one) is an error that carries the output.
func (r Runner) Run(ctx context.Context, command string) (string, error) {
	want := 0
	if m := exitRE.FindStringSubmatch(command); m != nil {
		want, _ = strconv.Atoi(m[1])
	}
	var missing []string
	script := binRE.ReplaceAllStringFunc(command, func(s string) string {
		m := binRE.FindStringSubmatch(s)
		path, ok := r.Bin[m[2]]
		if !ok {
			missing = append(missing, m[2])
			return s
		}
		return m[1] + shellQuote(path)
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%q: no binary for %s", command, strings.Join(missing, ", "))
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = r.Dir
	cmd.Env = cleanEnv(os.Environ())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String() + stderr.String()
	code := 0
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out, fmt.Errorf("%q: not done after %v", command, r.Timeout)
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		return out, fmt.Errorf("%q: %w", command, err)
	}
	if code != want {
		return out, fmt.Errorf("%q: exit %d, want %d; it printed:\n%s", command, code, want, out)
	}
	return out, nil
}

// cleanEnv drops the NQUEENS_ settings of the calling shell (a token, a
// level of logging) so that examples run with the defaults they show.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "NQUEENS_") {
			out = append(out, kv)
		}
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Mask is a part of an output that honestly varies between runs: every
// match of Re is replaced by the expansion of Repl (regexp.Expand syntax)
// on both sides before they are compared.
type Mask struct {
	Re   *regexp.Regexp
	Repl string
}

// Masks are the parts of this project's outputs that vary between runs and
// machines. Each is as narrow as its reason, so a count or a flag's help
// that changed still shows.
var Masks = []Mask{
	// Spaces at the ends of lines, which editors strip from Markdown.
	{regexp.MustCompile(`(?m)[ \t]+$`), ""},
	// Log timestamps (RFC 3339, with or without fractions of a second).
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)`), "TIME"},
	// The summary's wall time, busy time and rate.
	{regexp.MustCompile(`time \S+, busy \S+, \S+ solutions/s`), "time …, busy …, … solutions/s"},
	{regexp.MustCompile(`time \S+, \S+ solutions/s`), "time …, … solutions/s"},
	// "one solution by constructive in 103ms", "... done in 1.2s".
	{regexp.MustCompile(`\bin (\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "in …"},
	// --json: the wall time, and how many runs of tasks the workers took
	// (they take a run when they are free, which depends on timing).
	{regexp.MustCompile(`"(elapsed_seconds|busy_seconds|runs)":[0-9.e+-]+`), `"$1":…`},
	// coordinator export: the key of the worker session that computed a
	// task, random for each session.
	{regexp.MustCompile(`(?m)^(\d+,.*,)[0-9a-f]{16}$`), "${1}…"},
	{regexp.MustCompile(`("worker":")[0-9a-f]{16}"`), `${1}…"`},
	// A port picked by the kernel.
	{regexp.MustCompile(`(127\.0\.0\.1|\[::1\]|localhost):\d+`), "$1:…"},
	// In -h: defaults taken from the machine (its cores, its host name).
	{regexp.MustCompile(`(?m)^(  -(?:name|slots|threads|workers) \S+\n.*\(default )("[^"]*"|\d+)\)`), "${1}…)"},
}

// ApplyMasks applies masks to s, in order.
func ApplyMasks(s string, masks []Mask) string {
	for _, m := range masks {
		s = m.Re.ReplaceAllString(s, m.Repl)
	}
	return s
}
