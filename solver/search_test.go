package solver

import (
	"bytes"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// finishes is the reference for lastTwo and lastThree: it tries every
// order of the columns of f in the last len(rows) free rows, one queen at
// a time, as the plain backtracker would. rows[i] is the frame's squares in
// free row i and gaps[i] the distance from free row i to free row i+1.
func finishes(f, l, r uint32, fx []uint32, gaps []uint32) (sols, nodes uint32) {
	if len(fx) == 0 {
		return 1, 0
	}
	a := f &^ (l | r | fx[0])
	for ; a != 0; a &= a - 1 {
		x := a & -a
		if len(fx) == 1 {
			sols++
			continue
		}
		nodes++
		s, n := finishes(f^x, (l|x)<<gaps[0], (r|x)>>gaps[0], fx[1:], gaps[1:])
		sols += s
		nodes += n
	}
	return sols, nodes
}

// TestLastTwoAndThree checks the branch-free endings against finishes on
// every set of two and three columns of a 9-column board, with row gaps of
// 1 to 3 (frame rows in between), diagonals and frame squares from a fixed
// pseudo-random stream.
func TestLastTwoAndThree(t *testing.T) {
	const n = 9
	all := uint32(1)<<n - 1
	x := uint32(12345)
	rnd := func() uint32 { // xorshift: sparse masks hit more finishes
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return x & (x >> 7) & all
	}
	for f := uint32(1); f <= all; f++ {
		c := bits.OnesCount32(f)
		if c != 2 && c != 3 {
			continue
		}
		for trial := 0; trial < 60; trial++ {
			l, r := rnd(), rnd()
			fx := []uint32{rnd(), rnd(), rnd()}
			gaps := []uint32{1 + uint32(trial)%3, 1 + uint32(trial/3)%3}
			if c == 2 {
				want, wantNodes := finishes(f, l, r, fx[:2], gaps[:1])
				got, gotNodes := lastTwo(f, l, r, fx[0], gaps[0], fx[1])
				if got != want || gotNodes != wantNodes {
					t.Fatalf("lastTwo(f=%b l=%b r=%b fx=%b gap=%d) = %d, %d nodes; want %d, %d", f, l, r, fx[:2], gaps[0], got, gotNodes, want, wantNodes)
				}
				continue
			}
			e := ending{fx3: fx[0], fx2: fx[1], fx1: fx[2], s3: gaps[0], s2: gaps[1]}
			want, wantNodes := finishes(f, l, r, fx, gaps)
			got, gotNodes := lastThree(f, l, r, &e)
			if got != want || gotNodes != wantNodes {
				t.Fatalf("lastThree(f=%b l=%b r=%b fx=%b gaps=%v) = %d, %d nodes; want %d, %d", f, l, r, fx, gaps, got, gotNodes, want, wantNodes)
			}
		}
	}
}

// TestTailAgainstFinishes checks the four-row ending that count writes out
// (the same code as tail) against finishes on every set of four columns
// of a 9-column board: the solutions must match exactly, and the nodes may
// only be fewer (the tail skips a queen that leaves a later row empty).
func TestTailAgainstFinishes(t *testing.T) {
	const n = 9
	all := uint32(1)<<n - 1
	x := uint32(54321)
	rnd := func() uint32 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return x & (x >> 7) & all
	}
	pruned := false
	for f := uint32(1); f <= all; f++ {
		if bits.OnesCount32(f) != 4 {
			continue
		}
		for trial := 0; trial < 60; trial++ {
			l, r := rnd(), rnd()
			fx := []uint32{rnd(), rnd(), rnd(), rnd()}
			gaps := []uint32{1 + uint32(trial)%3, 1 + uint32(trial/3)%3, 1 + uint32(trial/9)%3}
			want, wantNodes := finishes(f, l, r, fx, gaps)
			e := ending{fx3: fx[1], fx2: fx[2], fx1: fx[3], s3: gaps[1], s2: gaps[2]}
			got, gotNodes := tail(f&^(l|r|fx[0]), ^f, l, r, gaps[0], &e)
			if got != uint64(want) || gotNodes > uint64(wantNodes) {
				t.Fatalf("tail(f=%b l=%b r=%b fx=%b gaps=%v) = %d, %d nodes; want %d, at most %d", f, l, r, fx, gaps, got, gotNodes, want, wantNodes)
			}
			pruned = pruned || gotNodes < uint64(wantNodes)
		}
	}
	if !pruned {
		t.Error("the tail never skipped a dead queen")
	}
}

// TestFrameDiagonalsRideInTheMasks checks what count relies on: on every
// border placement of boards up to 16, the frame's diagonals of free row
// i, carried one free row on by the shift sh[i] and topped up by il[i],
// ir[i], are exactly those of row i+1, and with the frame's columns they
// make up its squares fx.
func TestFrameDiagonalsRideInTheMasks(t *testing.T) {
	boards := 0
	for n := 4; n <= 16; n++ {
		triples(n, nil, func(a, c, d int) bool {
			boards++
			q, nq, _ := tripleQueens(n, a, c, d)
			var bd board
			bd.init(n, frame{queens: q, nq: nq})
			for i := 0; i < bd.k; i++ {
				if got := (bd.fl[i] | bd.fr[i] | bd.fcols) & bd.all; got != bd.fx[i] {
					t.Fatalf("n=%d (%d,%d,%d) row %d: diagonals and columns %b, fx %b", n, a, c, d, bd.rows[i], got, bd.fx[i])
				}
				if i+1 == bd.k {
					break
				}
				s := bd.sh[i]
				if got := (bd.fl[i]<<s | bd.il[i]) & bd.all; got != bd.fl[i+1] {
					t.Fatalf("n=%d (%d,%d,%d) row %d: l-diagonals carried %b, want %b", n, a, c, d, bd.rows[i+1], got, bd.fl[i+1])
				}
				if got := (bd.fr[i]>>s | bd.ir[i]) & bd.all; got != bd.fr[i+1] {
					t.Fatalf("n=%d (%d,%d,%d) row %d: r-diagonals carried %b, want %b", n, a, c, d, bd.rows[i+1], got, bd.fr[i+1])
				}
			}
			return true
		})
	}
	if boards < 1000 {
		t.Fatalf("only %d border placements checked", boards)
	}
}

// TestUpperMatchesNest checks nest.upper, which only boards beyond N=20
// reach from count, against the nested loops it hands its children to:
// on every border placement of boards 9 to 13, upper from the top level
// finds the same solutions and nodes as the nested loop of that depth.
func TestUpperMatchesNest(t *testing.T) {
	checked := 0
	for n := 9; n <= 13; n++ {
		triples(n, nil, func(a, c, d int) bool {
			q, nq, _ := tripleQueens(n, a, c, d)
			var bd board
			bd.init(n, frame{queens: q, nq: nq})
			var p nest
			end := p.init(&bd, 0)
			if end < 1 || end > maxNest {
				return true
			}
			cm := bd.fcols | ^bd.all
			l, r := bd.fl[0], bd.fr[0]
			a0 := ^(cm | l | r)
			ws, wn := nestCount(end, a0, cm, l, r, &p)
			gs, gn := p.upper(end, a0, cm, l, r)
			if gs != ws || gn != wn {
				t.Fatalf("n=%d (%d,%d,%d): upper gives %d solutions, %d nodes; nest%d %d, %d", n, a, c, d, gs, gn, end, ws, wn)
			}
			checked++
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("only %d border placements checked", checked)
	}
}

// TestNestGenIsFresh checks that nest_gen.go is what gen_nest.go writes
// now (run go generate ./solver after changing the generator).
func TestNestGenIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out := filepath.Join(t.TempDir(), "nest_gen.go")
	if msg, err := exec.Command(goTool, "run", "gen_nest.go", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_nest.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("nest_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("nest_gen.go is stale: run go generate ./solver")
	}
}
