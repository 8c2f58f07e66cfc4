package browsertest_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/status"
)

// unpublishedJob is the fake job of a board with no published count whose
// node counter saturates once the job is done, with 1 task in 40 verified.
type unpublishedJob struct{ *fakeJob }

func (u unpublishedJob) Status() coordinator.Status {
	s := u.fakeJob.Status()
	sum := &s.Summary
	sum.CheckedAgainstPublished = false
	sum.Verified, sum.VerifiedFraction = uint64(sum.Committed/40), float64(sum.Committed/40)/float64(max(sum.Committed, 1))
	if s.Done {
		sum.Nodes, sum.NodesSaturated = math.MaxUint64, true
	}
	return s
}

// TestDashboardTrust: the page shows the node count, without the
// saturation mark until the counter saturates, then with it and the
// count 2^64-1; and for a board with no published count, how much of the
// total was verified.
func TestDashboardTrust(t *testing.T) {
	ctx := browser(t)
	job := unpublishedJob{newFakeJob(2)}
	job.Advance()
	base := serve(t, status.NewHandler(job, status.Options{Interval: 100 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	if sat, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById("nodes-sat").hidden`)); sat {
		t.Errorf("the saturation mark shows at %s nodes, before the counter saturated", pageText(ctx, "nodes"))
	}
	job.Advance()
	if err := waitFor(ctx, `!document.getElementById("nodes-sat").hidden`); err != nil {
		t.Fatalf("the saturation mark did not show: %v (nodes %q)", err, pageText(ctx, "nodes"))
	}
	if got := pageText(ctx, "nodes"); got != "18446744073709551615" {
		t.Errorf("#nodes shows %q, want 18446744073709551615", got)
	}
	trust := pageText(ctx, "trust")
	if !strings.Contains(trust, "not checked against a published count") || !strings.Contains(trust, "1 of 40 tasks verified (2.5%") {
		t.Errorf("#trust shows %q, want the total not checked and 1 of 40 tasks (2.5%%) verified", trust)
	}
	screenshot(t, ctx, "dashboard-trust.png")
}
