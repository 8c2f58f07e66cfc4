package solver

import "fmt"

// Split returns the children of a KindCount (or listing) prefix of an
// n-board, in order: the prefixes one value longer that together cover
// exactly what prefix covers, so that the sum of CountTask over them is
// CountTask of prefix. A coordinator splits a task into its children when
// the task is too big for its cluster; nothing limits the
// depth but the board. It returns nil, with no error, for a prefix that
// cannot be split: one whose next free row is the last, which the search
// keeps for the queen of the last row, or one without children (it counts
// nothing). A prefix with one child splits into it: the same work, one
// row deeper, where it may split further.
func Split(n int, prefix []int) ([][]int, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	for i, v := range prefix[:min(len(prefix), frameDepth)] {
		if v < 0 || v >= n {
			return nil, fmt.Errorf("split: prefix value %d (position %d) out of range 0..%d", v, i, n-1)
		}
	}
	var kids [][]int
	if len(prefix) < frameDepth {
		last := -1
		triples(n, prefix, func(a, c, d int) bool {
			v := [frameDepth]int{a, c, d}[len(prefix)]
			if v != last {
				kids = append(kids, append(append(make([]int, 0, len(prefix)+1), prefix...), v))
				last = v
			}
			return true
		})
		if len(kids) == 0 && len(prefix) > 0 {
			return nil, fmt.Errorf("split: prefix %v: no canonical border placement of n=%d starts with it", prefix, n)
		}
	} else {
		var err error
		if kids, err = splitRows(n, prefix); err != nil {
			return nil, err
		}
	}
	if len(kids) == 0 {
		return nil, nil
	}
	return kids, nil
}

// splitRows lists the placements of the next free row below a prefix
// that fixes the border placement and some free rows.
func splitRows(n int, prefix []int) ([][]int, error) {
	q, nq, ok := tripleQueens(n, prefix[0], prefix[1], prefix[2])
	if !ok {
		return nil, fmt.Errorf("split: border placement %v of n=%d is not valid", prefix[:frameDepth], n)
	}
	var bd board
	bd.init(n, frame{queens: q, nq: nq})
	extra := prefix[frameDepth:]
	cm, l, r, err := bd.place(extra)
	if err != nil {
		return nil, fmt.Errorf("split: prefix %v: %w", prefix, err)
	}
	i := len(extra)
	if i+1 >= bd.k { // the next free row is the last one (or none is left)
		return nil, nil
	}
	var kids [][]int
	for a := bd.all &^ (cm | l | r | bd.fx[i]); a != 0; a &= a - 1 {
		kid := make([]int, len(prefix)+1)
		copy(kid, prefix)
		kid[len(prefix)] = bitIndex(a & -a)
		kids = append(kids, kid)
	}
	return kids, nil
}
