package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run calls Main and returns its exit status, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSmallStudy(t *testing.T) {
	dir := t.TempDir()
	csvPath, plotPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.png")
	code, out, errOut := run(t, "lasvegas", "--n", "6:8", "--trials", "20", "--seed", "7", "--csv", csvPath, "--plot", plotPath)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for n := 6; n <= 8; n++ {
		for k := 0; k <= n; k++ {
			row := fmt.Sprintf("| %d | %d | 20 | ", n, k)
			if strings.Count(out, row) != 1 {
				t.Errorf("table has %d rows starting %q, want 1", strings.Count(out, row), row)
			}
		}
	}
	if !strings.Contains(out, "Fastest k (mean time ± the 95% interval of the mean): N=6 k=") || !strings.Contains(out, ", N=8 k=") {
		t.Errorf("no fastest-k line in:\n%s", out)
	}

	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 7 + 8 + 9; len(rows) != want {
		t.Errorf("csv has %d rows, want %d (a header and one per (N, k))", len(rows), want)
	}
	if got := strings.Join(rows[0], ","); got != "n,k,trials,mean_failures,sd_failures,mean_time_us,sd_time_us,ci95_time_us" {
		t.Errorf("csv header = %q", got)
	}
	for _, row := range rows[1:] {
		if len(row) != 8 {
			t.Fatalf("csv row %q has %d fields, want 8", row, len(row))
		}
	}

	p, err := os.Open(plotPath)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cfg, err := png.DecodeConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != ChartWidth || cfg.Height != ChartHeight {
		t.Errorf("chart is %dx%d, want %dx%d", cfg.Width, cfg.Height, ChartWidth, ChartHeight)
	}
}

// failureColumn is the table without its time columns: N, k, trials and
// the failures' mean and standard deviation.
func failureColumn(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 10 {
			b.WriteString(strings.Join(cells[1:6], "|") + "\n")
		}
	}
	return b.String()
}

func TestSameSeedSameFailures(t *testing.T) {
	args := []string{"lasvegas", "--n", "8:9", "--trials", "30", "--seed", "42"}
	_, a, _ := run(t, args...)
	_, b, _ := run(t, args...)
	fa, fb := failureColumn(t, a), failureColumn(t, b)
	if fa != fb || strings.Count(fa, "\n") != 2+9+10 {
		t.Errorf("same seed, different failures:\n%s\n%s", fa, fb)
	}
	_, c, _ := run(t, "lasvegas", "--n", "8:9", "--trials", "30", "--seed", "43")
	if failureColumn(t, c) == fa {
		t.Errorf("seeds 42 and 43 gave the same failures")
	}
}

// TestParallelSameFailures: one goroutine or several, the failure counts
// are the same, since each cell has its own generator.
func TestParallelSameFailures(t *testing.T) {
	base := []string{"lasvegas", "--n", "7:9", "--trials", "20", "--seed", "7"}
	_, one, _ := run(t, append(base, "--parallel", "1")...)
	_, three, _ := run(t, append(base, "--parallel", "3")...)
	if failureColumn(t, one) != failureColumn(t, three) {
		t.Errorf("--parallel 1 and 3 gave different failures:\n%s\n%s", failureColumn(t, one), failureColumn(t, three))
	}
}

func TestOneK(t *testing.T) {
	code, out, errOut := run(t, "lasvegas", "--n", "8:10", "--k", "9", "--trials", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// k=9 is skipped for N=8.
	if strings.Contains(out, "| 8 | 9 |") || !strings.Contains(out, "| 9 | 9 |") || !strings.Contains(out, "| 10 | 9 |") {
		t.Errorf("--k 9 table:\n%s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "missing study name"},
		{[]string{"montecarlo"}, `unknown study "montecarlo"`},
		{[]string{"lasvegas", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"lasvegas", "--n", "x"}, `--n: "x" is not a number`},
		{[]string{"lasvegas", "--n", "9:8"}, "is empty"},
		{[]string{"lasvegas", "--n", "2:5"}, "board sizes must be 4.."},
		{[]string{"lasvegas", "--trials", "0"}, "--trials 0: want at least 1"},
		{[]string{"lasvegas", "--k", "-1"}, "k must be at least 0"},
		{[]string{"lasvegas", "--n", "8", "--k", "9"}, "every k is above the largest N"},
		{[]string{"lasvegas", "--plot", "chart.svg"}, "name the file .png"},
		{[]string{"lasvegas", "--n", "6", "--csv", "/nonexistent/dir/x.csv"}, "--csv: open /nonexistent"},
		{[]string{"lasvegas", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, tt.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("Main(%q) = %d, stdout %q, stderr %q; want 2 and one line containing %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

func TestHelp(t *testing.T) {
	code, _, errOut := run(t, "lasvegas", "-h")
	if code != 0 {
		t.Errorf("lasvegas -h exit %d, want 0", code)
	}
	for _, flag := range []string{"-n A:B", "-k K", "-trials", "-seed", "-csv FILE", "-plot FILE.png", "PCG"} {
		if !strings.Contains(errOut, flag) {
			t.Errorf("lasvegas -h does not mention %q:\n%s", flag, errOut)
		}
	}
	if code, _, errOut := run(t, "-h"); code != 0 || !strings.Contains(errOut, "lasvegas") {
		t.Errorf("study -h = %d, %q", code, errOut)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"lasvegas", "--n", "8"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("cancelled study = %d, %q; want 1 and an interrupted line", code, errOut.String())
	}
}

// TestInterruptedMidTrial: a trial that backtracks for minutes (k=0 on
// N=32) ends as soon as the context does, not when the trial would.
func TestInterruptedMidTrial(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, []Cell{{N: 32, K: 0}}, 1, 1, 1, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "interrupted at N=32 k=0") {
		t.Fatalf("Run of a long trial under a 300ms context = %v, want an interrupted error", err)
	}
	t.Logf("interrupted after %v", time.Since(start).Round(time.Millisecond))
}

func ExampleMain() {
	// Failure counts depend only on the seed; times depend on the machine.
	var out bytes.Buffer
	Main(context.Background(), []string{"lasvegas", "--n", "4", "--trials", "10", "--seed", "1"}, &out, os.Stderr)
	for _, line := range strings.Split(out.String(), "\n")[:7] {
		if cells := strings.Split(line, "|"); len(cells) == 10 {
			fmt.Println(strings.Join(cells[:6], "|") + "|")
		}
	}
	// Output:
	// | N | k | trials | mean failures | sd failures |
	// |---:|---:|---:|---:|---:|
	// | 4 | 0 | 10 | 0.00 | 0.00 |
	// | 4 | 1 | 10 | 0.80 | 0.63 |
	// | 4 | 2 | 10 | 0.80 | 1.03 |
	// | 4 | 3 | 10 | 1.60 | 2.22 |
	// | 4 | 4 | 10 | 0.80 | 1.03 |
}

// TestCSVWriteError: a CSV file that cannot be written (a full disk) is an
// error with exit 1, not a silent success.
func TestCSVWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	code, _, errOut := run(t, "lasvegas", "--n", "4", "--trials", "2", "--csv", "/dev/full")
	if code != 1 || !strings.Contains(errOut, "--csv") || !strings.Contains(errOut, "no space left") {
		t.Errorf("--csv /dev/full = exit %d, %q; want 1 and the write error", code, errOut)
	}
}

// TestTestdataFailures: the committed study table's failure columns (mean
// and standard deviation, which depend on the seed alone) are what the
// study gives today for N=12, so a change to the method's draws cannot
// leave the published table stale. (Its times are measurements.)
func TestTestdataFailures(t *testing.T) {
	const path = "testdata/lasvegas-12-20.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	table := string(b)
	if !strings.Contains(table, "lasvegas --n 12:20 --trials 3000 --seed 1 ") {
		t.Fatalf("%s does not name the flags it was made with (--n 12:20 --trials 3000 --seed 1)", path)
	}
	var cells []Cell
	for k := 0; k <= 12; k++ {
		cells = append(cells, Cell{N: 12, K: k})
	}
	results, err := Run(context.Background(), cells, 3000, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteMarkdown(&out, results); err != nil {
		t.Fatal(err)
	}
	want := failureColumn(t, table)
	for _, row := range strings.Split(failureColumn(t, out.String()), "\n") {
		if row != "" && !strings.Contains(want, row+"\n") {
			t.Errorf("%s lacks the row %q that the study prints today (regenerate it with the command in its header)", path, row)
		}
	}
}
