// Command k8sdecode decodes a multi-document Kubernetes YAML stream strictly,
// as the API server does (see package check): an unknown, misspelt or
// duplicate field, or a kind the check does not know, fails. CI feeds it
// what kustomize renders:
//
//	kubectl kustomize deploy/k8s | (cd deploy/k8s/check && go run ./cmd/k8sdecode)
//	k8sdecode rendered.yaml
//
// It reads FILE, or stdin when FILE is - or absent, and prints one line:
// how many objects of each kind it decoded. Exit status: 0 all decoded,
// 1 a document did not, 2 bad usage.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/nqueens/nqueens/deploy/k8s/check"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole command: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 || (len(args) == 1 && len(args[0]) > 1 && args[0][0] == '-') {
		fmt.Fprintln(stderr, "usage: k8sdecode [FILE|-]   (decodes a multi-document YAML stream strictly; stdin by default)")
		return 2
	}
	name, in := "stdin", stdin
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "k8sdecode: %v\n", err)
			return 1
		}
		defer f.Close()
		name, in = args[0], f
	}
	objs, err := check.DecodeStream(in)
	if err != nil {
		fmt.Fprintf(stderr, "k8sdecode: %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(stdout, "k8sdecode: %s: %d objects decoded strictly (%s)\n", name, objs.Count(), objs.Summary())
	return 0
}
