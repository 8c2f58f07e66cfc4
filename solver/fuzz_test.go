package solver

import (
	"slices"
	"testing"
)

// naiveSolutions lists every solution of the n-board by the simplest
// recursive backtracker, with no masks and no symmetry.
func naiveSolutions(n int) [][]int {
	var out [][]int
	p := make([]int, n)
	var rec func(r int)
	rec = func(r int) {
		if r == n {
			out = append(out, slices.Clone(p))
			return
		}
		for c := 0; c < n; c++ {
			ok := true
			for i := 0; i < r; i++ {
				if p[i] == c || p[i]-c == r-i || c-p[i] == r-i {
					ok = false
					break
				}
			}
			if ok {
				p[r] = c
				rec(r + 1)
			}
		}
	}
	rec(0)
	return out
}

// naiveImage maps solution p by symmetry g square by square.
func naiveImage(g int, p []int) []int {
	n := len(p)
	q := make([]int, n)
	for r, c := range p {
		rr, cc := transform(g, n-1, r, c)
		q[rr] = cc
	}
	return q
}

// naiveSig is the border signature (a, b, c, d) of a full solution.
func naiveSig(p []int) [4]int {
	n := len(p)
	s := [4]int{p[0], p[n-1]}
	for r, c := range p {
		if c == 0 {
			s[2] = r
		}
		if c == n-1 {
			s[3] = r
		}
	}
	return s
}

// naiveCountTask recomputes a KindCount task from the full list of
// solutions: a solution counts in the task when its border signature is
// the smallest of its images (sigKey order) and matches the prefix; it
// weighs the number of distinct image signatures, and it is fundamental
// when no image with the same signature is lexicographically smaller.
func naiveCountTask(n int, prefix []int) Counts {
	var got Counts
	for _, p := range naiveSolutions(n) {
		s := naiveSig(p)
		canonical, unique := true, true
		var sigs [][4]int
		for g := 0; g < 8; g++ {
			img := naiveImage(g, p)
			is := naiveSig(img)
			if lessSig(is, s) {
				canonical = false
			}
			if !slices.Contains(sigs, is) {
				sigs = append(sigs, is)
			}
			if is == s && slices.Compare(img, p) < 0 {
				unique = false
			}
		}
		if !canonical {
			continue
		}
		key := []int{s[0], s[2], s[3]}
		// The extra values are the queens of the rows other than 0, c, d.
		for r := 1; r < n && len(key) < len(prefix); r++ {
			if r != s[2] && r != s[3] {
				key = append(key, p[r])
			}
		}
		if len(key) < len(prefix) || !slices.Equal(key[:len(prefix)], prefix) {
			continue
		}
		got.Total += uint64(len(sigs))
		if unique {
			got.Unique++
		}
	}
	return got
}

// FuzzSubtree checks a random task of a random counting plan (its
// weighted counts), or a random row prefix (its Solutions), against the
// naive solver.
func FuzzSubtree(f *testing.F) {
	f.Add(uint8(8), uint8(2), uint16(5), false)
	f.Add(uint8(8), uint8(4), uint16(17), true)
	f.Add(uint8(10), uint8(3), uint16(40), true)
	f.Add(uint8(1), uint8(0), uint16(0), true)
	f.Fuzz(func(t *testing.T, nb, depthSel uint8, pick uint16, counting bool) {
		n := 1 + int(nb)%10
		if counting {
			depth := int(depthSel) % (MaxDepth(n, KindCount) + 1)
			plan, err := NewPlan(n, depth, KindCount)
			if err != nil {
				t.Fatalf("NewPlan(%d, %d, count): %v", n, depth, err)
			}
			if len(plan.Tasks) == 0 {
				return
			}
			task := plan.Tasks[int(pick)%len(plan.Tasks)]
			got, err := CountTask(n, task)
			if err != nil {
				t.Fatalf("CountTask(%d, %v): %v", n, task.Prefix, err)
			}
			want := naiveCountTask(n, task.Prefix)
			if got.Total != want.Total || got.Unique != want.Unique {
				t.Fatalf("CountTask(%d, %v) = %d total, %d unique; naive solver says %d, %d", n, task.Prefix, got.Total, got.Unique, want.Total, want.Unique)
			}
			return
		}
		// A row prefix of some solution, or a dead end of the naive search.
		sols := naiveSolutions(n)
		if len(sols) == 0 {
			return
		}
		task := Task{Prefix: sols[int(pick)%len(sols)][:int(depthSel)%(n+1)]}
		if depthSel%7 == 0 && len(task.Prefix) > 0 {
			task.Prefix = slices.Clone(task.Prefix)
			task.Prefix[len(task.Prefix)-1] = (task.Prefix[len(task.Prefix)-1] + 1) % n
			if CheckPrefix(n, task.Prefix) != nil {
				return
			}
		}
		var want [][]int
		for _, p := range sols {
			if slices.Equal(p[:len(task.Prefix)], task.Prefix) {
				want = append(want, p)
			}
		}
		var got [][]int
		for s := range Solutions(n, task.Prefix) {
			got = append(got, slices.Clone(s))
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("Solutions(%d, %v) = %v, naive solver says %v", n, task.Prefix, got, want)
		}
	})
}

// FuzzCountTaskInput feeds CountTask arbitrary prefixes, as a coordinator
// or a worker might receive them off the wire: an error is fine, a panic
// is not.
func FuzzCountTaskInput(f *testing.F) {
	f.Add(uint8(8), []byte{0, 7, 3})
	f.Add(uint8(12), []byte{1, 11, 10, 4, 6})
	f.Add(uint8(14), []byte{255, 0})
	f.Fuzz(func(t *testing.T, nb uint8, raw []byte) {
		n := int(nb) % 15 // larger boards are valid too, but a task may take minutes
		prefix := make([]int, len(raw))
		for i, v := range raw {
			prefix[i] = int(int8(v))
		}
		CountTask(n, Task{Prefix: prefix})
		for range Solutions(min(n, 12), prefix) {
		}
	})
}
