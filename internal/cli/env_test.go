package cli

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// hiddenValue is a flag.Value with Reveal, as auth.Token is.
type hiddenValue struct{ s string }

func (h *hiddenValue) String() string { return "" }
func (h *hiddenValue) Reveal() string { return h.s }
func (h *hiddenValue) Set(s string) error {
	if strings.Contains(s, " ") {
		return flagError("has a space")
	}
	h.s = s
	return nil
}

type flagError string

func (e flagError) Error() string { return string(e) }

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{"n": "NQUEENS_N", "join-timeout": "NQUEENS_JOIN_TIMEOUT", "tls-server-name": "NQUEENS_TLS_SERVER_NAME"} {
		if got := EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFromEnv: the environment fills the flags the command line left
// unset, the command line wins, an empty variable is unset, the flags set
// from it count as given, and bad values name the variable (never a
// secret's value).
func TestFromEnv(t *testing.T) {
	env := map[string]string{
		"NQUEENS_N": "27", "NQUEENS_JOIN_TIMEOUT": "2m", "NQUEENS_NAME": "from-env",
		"NQUEENS_SLOTS": "", "NQUEENS_VERSION": "true", "NQUEENS_JSON": "true",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	n := fs.Int("n", 0, "")
	jt := fs.Duration("join-timeout", time.Second, "")
	name := fs.String("name", "host", "")
	slots := fs.Int("slots", 4, "")
	js := fs.Bool("json", false, "")
	version := AddVersion(fs)
	if err := fs.Parse([]string{"--name", "from-args"}); err != nil {
		t.Fatal(err)
	}
	if err := FromEnv(fs, lookup); err != nil {
		t.Fatal(err)
	}
	if *n != 27 || *jt != 2*time.Minute || *name != "from-args" || *slots != 4 || !*js {
		t.Errorf("n=%d join-timeout=%v name=%q slots=%d json=%v; want 27, 2m0s, from-args (the command line wins), 4 (empty is unset), true",
			*n, *jt, *name, *slots, *js)
	}
	if version.set {
		t.Error("$NQUEENS_VERSION set --version; it must not be read from the environment")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["n"] || !given["join-timeout"] || given["slots"] {
		t.Errorf("given = %v, want n and join-timeout (from the environment) and not slots", given)
	}

	env = map[string]string{"NQUEENS_N": "twelve"}
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("n", 0, "")
	fs.Parse(nil)
	if err := FromEnv(fs, lookup); err == nil || err.Error() != `$NQUEENS_N="twelve": parse error` {
		t.Errorf("FromEnv with NQUEENS_N=twelve = %v, want the variable, its value and the problem", err)
	}
	env = map[string]string{"NQUEENS_TOKEN": "s3cret value"}
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Var(&hiddenValue{}, "token", "")
	fs.Parse(nil)
	if err := FromEnv(fs, lookup); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.HasPrefix(err.Error(), "$NQUEENS_TOKEN: ") {
		t.Errorf("FromEnv with a bad token = %v, want an error naming $NQUEENS_TOKEN without the token", err)
	}
}

func TestPick(t *testing.T) {
	m := func(names ...string) map[string]bool {
		out := map[string]bool{}
		for _, n := range names {
			out[n] = true
		}
		return out
	}
	for _, tc := range []struct {
		given, args map[string]bool
		want, err   string
	}{
		{m(), m(), "", ""},
		{m("token"), m(), "token", ""},
		{m("token-file"), m("token-file"), "token-file", ""},
		{m("token", "token-file"), m("token-file"), "token-file", ""}, // $NQUEENS_TOKEN, --token-file
		{m("token", "token-file"), m("token"), "token", ""},           // --token, $NQUEENS_TOKEN_FILE
		{m("token", "token-file"), m("token", "token-file"), "", "--token and --token-file both set on the command line: give one"},
		{m("token", "token-file"), m(), "", "--token and --token-file both set in the environment: give one"},
	} {
		got, err := Pick("token", "token-file", tc.given, tc.args)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("Pick(given %v, args %v) = %q, %v; want %q, %q", tc.given, tc.args, got, err, tc.want, tc.err)
		}
	}
}
