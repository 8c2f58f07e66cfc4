package cli

import (
	"flag"
	"fmt"
	"strings"
)

// EnvPrefix starts the name of every environment variable a flag is read
// from: a container or a Kubernetes ConfigMap configures a command without
// changing its arguments.
const EnvPrefix = "NQUEENS_"

// EnvName is the environment variable of the flag name: EnvPrefix, then
// the name in upper case with each - as _ (join-timeout:
// NQUEENS_JOIN_TIMEOUT).
func EnvName(name string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// secret is a flag value whose text must not appear in errors (an
// auth.Token).
type secret interface{ Reveal() string }

// FromEnv sets each flag of fs that the command line left unset from its
// environment variable (EnvName), looked up with lookup (os.LookupEnv):
// the command line wins over the environment, the environment over the
// default. An empty variable counts as unset. Flags set this way count as
// given (fs.Visit sees them), so the checks of what was given apply to
// them too. --version and -h are never read from the environment. Call it
// after a successful parse; a bad value is an error that names the
// variable (and, but for a secret, the value).
func FromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := Given(fs)
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || given[f.Name] || f.Name == "version" || f.Name == "h" || f.Name == "help" {
			return
		}
		name := EnvName(f.Name)
		v, ok := lookup(name)
		if !ok || v == "" {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			if _, hidden := f.Value.(secret); hidden {
				err = fmt.Errorf("$%s: %v", name, serr)
			} else {
				err = fmt.Errorf("$%s=%q: %v", name, v, serr)
			}
		}
	})
	return err
}

// Given returns the names of the flags of fs that are set: after FromEnv,
// those on the command line and those from the environment.
func Given(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// Pick chooses between two flags that set the same thing in two ways
// (--token and --token-file): it returns the one given ("" for neither),
// or of two given the one on the command line (onArgs: Given before
// FromEnv) when the other came from the environment; both from the same
// place is an error.
func Pick(a, b string, given, onArgs map[string]bool) (string, error) {
	switch {
	case !given[a] && !given[b]:
		return "", nil
	case !given[b]:
		return a, nil
	case !given[a]:
		return b, nil
	case onArgs[a] && !onArgs[b]:
		return a, nil
	case onArgs[b] && !onArgs[a]:
		return b, nil
	}
	where := "in the environment"
	if onArgs[a] {
		where = "on the command line"
	}
	return "", fmt.Errorf("--%s and --%s both set %s: give one", a, b, where)
}
