package solver

import "testing"

// TestBurnsideUnique: for every canonical frame of N=4..13 whose
// stabilizer is rotational, the fast loop's count with Burnside's fixed
// solutions gives the fundamental count that the recording search
// (countSym, each solution against its images) gives; and a frame of each
// kind occurs, so the test tests something.
func TestBurnsideUnique(t *testing.T) {
	seen := map[uint8]int{}
	for n := 4; n <= 13; n++ {
		for a := range n {
			for b := range n {
				for c := range n {
					for d := range n {
						f, ok := makeFrame(n, [4]int{a, b, c, d})
						if !ok || !rotational(f.stab) {
							continue
						}
						seen[f.stab]++
						var bd board
						bd.init(n, f)
						sols, _ := bd.count(0, 0, 0, 0)
						wantSols, wantUniq, _ := bd.countSym(nil)
						if got := burnsideUnique(n, f, sols); sols != wantSols || got != wantUniq {
							t.Errorf("n=%d frame %v (stab %04b): %d solutions, %d fundamental; want %d, %d", n, f.sig, f.stab, sols, got, wantSols, wantUniq)
						}
					}
				}
			}
		}
	}
	t.Logf("rotational frames by stabilizer: %v", seen)
	if seen[0b0101] == 0 || seen[0b1111] == 0 {
		t.Errorf("rotational frames seen by stabilizer: %v; want both 180° and 90° ones", seen)
	}
}
