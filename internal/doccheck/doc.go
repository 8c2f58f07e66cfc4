// Package doccheck keeps the Markdown documentation true: every link
// inside the repository resolves (the file exists, the heading an anchor
// names is there), and every example output marked in the text is what
// the real command prints today.
//
// An example is a fenced block with a marker comment on the line above it.
// The output of one command:
//
//	<!-- doccheck: go run ./cmd/nqueens-coordinator --n 12 --workers 4 -->
//	```
//	N=12: 14200 solutions, 1787 fundamental
//	time 23ms, 625.9k solutions/s; 1090 tasks (depth 4) on 4 workers, 135718 nodes
//	```
//
// or a terminal session, each "$ " line a command and the lines under it
// its output (stdout, then stderr); "# exit N" at the end of a command says
// it must exit N (default 0):
//
//	<!-- doccheck -->
//	```console
//	$ go run ./cmd/nqueens-coordinator --n 8 --fix 1:1,2:2   # exit 2
//	coordinator: --fix: pins (1,1) and (2,2) attack each other on a diagonal
//	```
//
// Commands run in bash, in a scratch directory shared by the examples of
// one file, with "go run ./cmd/NAME" and "bin/NAME" replaced by binaries
// built once from the module. What honestly varies from run to run (times,
// rates, ports, log timestamps, the machine's core count and host name in
// -h) is masked on both sides before they are compared, and nothing else:
// a count, a task number or a flag's help that changed fails the check.
//
// The repository's own check is this package's test, run by scripts/test.sh
// with every other test; after a change that moves an output,
//
//	go test ./internal/doccheck -update
//
// writes the new outputs into the Markdown files (only the blocks that
// differ beyond the masks), to be read over and committed like a golden file.
package doccheck
