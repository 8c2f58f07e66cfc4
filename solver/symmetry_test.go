package solver

import (
	"fmt"
	"slices"
	"testing"
)

// TestAppendClass checks AppendClass against the definitions: the classes
// of the canonical solutions of N=1..10 hold every solution exactly once
// (as many as known), each class holds ClassSize images, the kept images
// are the symmetries of the solver's numbering (naiveImage), and unique
// keeps exactly the canonical one; the byte and int versions agree.
func TestAppendClass(t *testing.T) {
	known := []int{1, 0, 0, 2, 10, 4, 40, 92, 352, 724}
	for n := 1; n <= 10; n++ {
		seen := make(map[string]bool)
		for cols := range UniqueSolutions(n, nil) {
			class := AppendClass(nil, cols, false)
			if len(class) != ClassSize(cols)*n {
				t.Fatalf("AppendClass(%v) made %d images, want ClassSize %d", cols, len(class)/n, ClassSize(cols))
			}
			var images [][]int
			for g := range 8 {
				images = append(images, naiveImage(g, cols))
			}
			for i := 0; i < len(class); i += n {
				img := class[i : i+n]
				if !slices.ContainsFunc(images, func(x []int) bool { return slices.Equal(x, img) }) {
					t.Fatalf("AppendClass(%v) image %v is no symmetry of it", cols, img)
				}
				if seen[fmt.Sprint(img)] {
					t.Fatalf("n=%d: solution %v made twice", n, img)
				}
				seen[fmt.Sprint(img)] = true
			}
			canon := AppendClass(nil, cols, true)
			if !slices.Equal(canon, cols) || !Canonical(canon) {
				t.Fatalf("AppendClass(%v, unique) = %v, want the canonical solution itself", cols, canon)
			}
			b := make([]byte, n)
			for i, c := range cols {
				b[i] = byte(c)
			}
			bclass := AppendClass([]byte{99}, b, false)
			if bclass[0] != 99 || len(bclass) != 1+len(class) {
				t.Fatalf("AppendClass(bytes %v) did not append after dst", b)
			}
			for i, c := range class {
				if int(bclass[1+i]) != c {
					t.Fatalf("AppendClass(bytes %v) = %v, the int version %v", b, bclass[1:], class)
				}
			}
		}
		if len(seen) != known[n-1] {
			t.Errorf("n=%d: the classes hold %d solutions, want %d", n, len(seen), known[n-1])
		}
	}
}

// TestAppendClassUniqueFromAnyMember: whichever member of a class it is
// given, AppendClass with unique gives the canonical one.
func TestAppendClassUniqueFromAnyMember(t *testing.T) {
	for cols := range Solutions(9, nil) {
		canon := AppendClass(nil, cols, true)
		if !Canonical(canon) {
			t.Fatalf("AppendClass(%v, unique) = %v, not canonical", cols, canon)
		}
		if got := ClassSize(canon); got != ClassSize(cols) {
			t.Fatalf("AppendClass(%v, unique) = %v, in a class of %d, not %d", cols, canon, got, ClassSize(cols))
		}
	}
}

func BenchmarkAppendClass(b *testing.B) {
	var reps [][]byte
	for cols := range UniqueSolutions(12, nil) {
		r := make([]byte, len(cols))
		for i, c := range cols {
			r[i] = byte(c)
		}
		reps = append(reps, r)
	}
	dst := make([]byte, 0, 8*12)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = AppendClass(dst[:0], reps[i%len(reps)], false)
	}
}

func ExampleAppendClass() {
	// The solution of the 4-board whose quarter turn is itself: a class
	// of two, the solution and its mirror image.
	class := AppendClass(nil, []int{1, 3, 0, 2}, false)
	fmt.Println(class[:4], class[4:])
	fmt.Println(AppendClass(nil, []byte{2, 0, 3, 1}, true))
	// Output:
	// [1 3 0 2] [2 0 3 1]
	// [1 3 0 2]
}
