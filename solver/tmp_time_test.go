package solver

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestTmpTimeUnits(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TN"))
	if n == 0 {
		t.Skip()
	}
	step, _ := strconv.Atoi(os.Getenv("TS"))
	units := joinUnits(n, DefaultJoinTasks)
	var p *JoinPlan
	if os.Getenv("TJ") != "" {
		p, _ = NewJoinPlan(n, DefaultJoinTasks)
	}
	var bsum, jsum time.Duration
	k := 0
	for i := 0; i < units; i += step {
		s := time.Now()
		c, _ := JoinTaskBacktrack(n, Task{Index: i, Prefix: []int{i}})
		bt := time.Since(s)
		bsum += bt
		var jt time.Duration
		var j uint64
		if p != nil {
			s = time.Now()
			j, _ = p.NewCounter().Count(i)
			jt = time.Since(s)
			jsum += jt
			if j != c.Total {
				t.Errorf("unit %d: %d vs %d", i, c.Total, j)
			}
		}
		k++
		if os.Getenv("TV") != "" {
			fmt.Printf("n=%d unit %d/%d: backtrack %d in %v (%d nodes); join %d in %v\n", n, i, units, c.Total, bt, c.Nodes, j, jt)
		}
	}
	fmt.Printf("n=%d: %d units of %d: backtrack mean %v max-ish, join mean %v\n", n, k, units, bsum/time.Duration(k), jsum/time.Duration(k))
}
