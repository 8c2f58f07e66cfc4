package worker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/packed"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// TestRunPinnedTask runs the tasks of a pinned plan of N=8 with a queen
// on (1,1) as the coordinator assigns them: counting, they add up to the
// 4 completions; listing, they stream those 4 solutions whole, in the
// classic order, and report the same counts.
func TestRunPinnedTask(t *testing.T) {
	pins, _ := solver.ParsePins(8, "1:1")
	plan, err := solver.NewPinnedPlan(8, 2, pins)
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	var listed []string
	for _, task := range plan.Tasks {
		a := pinnedAssign(plan, task)
		res := runTask(context.Background(), a, solver.CountTask, nil)
		if res.GetFailure() != "" || res.GetUnique() != 0 {
			t.Fatalf("task %v: %+v", task.Prefix, res)
		}
		total += res.GetTotal()
		a.WantSolutions = true
		var streamed uint64
		lres := runTask(context.Background(), a, solver.CountTask, func(b *nqueenspb.SolutionBatch) bool {
			cols := make([]int, 8)
			for i := 0; i < len(b.GetPacked()); i += 8 {
				packed.Unpack(cols, b.GetPacked()[i:i+8])
				listed = append(listed, fmt.Sprint(cols))
				streamed++
			}
			return true
		})
		if lres.GetFailure() != "" || lres.GetTotal() != res.GetTotal() || streamed != res.GetTotal() {
			t.Fatalf("task %v listed: %+v, %d streamed; counted %d", task.Prefix, lres, streamed, res.GetTotal())
		}
	}
	want := []string{"[0 4 7 5 2 6 1 3]", "[0 5 7 2 6 3 1 4]", "[0 6 3 5 7 1 4 2]", "[0 6 4 7 1 3 5 2]"}
	if total != 4 || !slices.Equal(listed, want) {
		t.Errorf("pinned (1,1) on N=8: counted %d, listed %v; want 4, %v", total, listed, want)
	}
}

func pinnedAssign(plan solver.Plan, task solver.Task) *nqueenspb.Assign {
	prefix := make([]uint32, len(task.Prefix))
	for i, c := range task.Prefix {
		prefix[i] = uint32(c)
	}
	return &nqueenspb.Assign{
		TaskId: &nqueenspb.TaskId{PlanFingerprint: plan.Fingerprint(), Index: uint32(task.Index)},
		N:      uint32(plan.N), Kind: nqueenspb.TaskKind_TASK_KIND_PINNED, Prefix: prefix,
		PinnedColumns: solver.PinnedColumns(plan.N, plan.Pins),
	}
}

// TestRunPinnedTaskRefused: a pinned task without its pins, or with pins
// that attack each other, fails with a reason instead of counting
// something else.
func TestRunPinnedTaskRefused(t *testing.T) {
	for _, tt := range []struct {
		cols []uint32
		want string
	}{
		{nil, "0 pinned columns for n=8"},
		{[]uint32{1, 2, 0, 0, 0, 0, 0, 0}, "diagonal"},
	} {
		a := &nqueenspb.Assign{N: 8, Kind: nqueenspb.TaskKind_TASK_KIND_PINNED, PinnedColumns: tt.cols}
		if res := runTask(context.Background(), a, solver.CountTask, nil); !strings.Contains(res.GetFailure(), tt.want) {
			t.Errorf("pinned columns %v: failure %q, want %q", tt.cols, res.GetFailure(), tt.want)
		}
	}
	a := &nqueenspb.Assign{N: 8, Kind: nqueenspb.TaskKind_TASK_KIND_ALL}
	if res := runTask(context.Background(), a, solver.CountTask, nil); !strings.Contains(res.GetFailure(), "unsupported task kind") {
		t.Errorf("TASK_KIND_ALL: failure %q", res.GetFailure())
	}
}
