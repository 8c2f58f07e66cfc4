package coordinator

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/worker"
)

// TestRemoteVerifyDefault: on a board treated as unpublished, a remote
// worker's commits are verified at Config.RemoteVerifyFraction (here 1,
// so every one), even one that calls itself "embedded-0"; the job's own
// embedded workers are trusted and a board with a published count needs
// none. The summary, its JSON and Status say how much was verified and
// whether the total was compared with a published count.
func TestRemoteVerifyDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		embedded    int  // embedded workers (else one remote worker)
		unpublished bool // Config.AsUnpublished
		verified    bool // every task verified, or none
	}{
		{"remote, unpublished", 0, true, true},
		{"embedded, unpublished", 1, true, false},
		{"remote, published", 0, false, false},
	} {
		cfg := testConfig(8, tc.embedded)
		cfg.Depth, cfg.RemoteVerifyFraction, cfg.AsUnpublished = 2, 1, tc.unpublished
		r := startJob(t, context.Background(), cfg)
		if tc.embedded == 0 {
			go worker.Run(context.Background(), worker.Config{Join: r.addr, Slots: 1, Name: "embedded-0", JoinTimeout: workerJoinTimeout}, hclog.NewNullLogger())
		}
		s, err := r.wait(t)
		checkTotal(t, s, err, 8)
		type trust struct {
			checked       bool
			tasks, sols   uint64
			fTasks, fSols float64
		}
		want := trust{checked: !tc.unpublished}
		if tc.verified {
			want = trust{false, uint64(s.Committed), s.Solutions, 1, 1}
		}
		if got := (trust{s.CheckedAgainstPublished, s.Verified, s.VerifiedSolutions, s.VerifiedFraction, s.VerifiedSolutionsFraction}); got != want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, want)
		}
		if st := r.job.Status().Summary; st.CheckedAgainstPublished != want.checked || st.Verified != want.tasks || st.VerifiedFraction != want.fTasks {
			t.Errorf("%s: Status says checked %v, %d verified (%v); want as the summary", tc.name, st.CheckedAgainstPublished, st.Verified, st.VerifiedFraction)
		}
		b, _ := json.Marshal(s)
		wantJSON := `"checked_against_published":false,"verified_solutions":92,"verified_fraction":1,"verified_solutions_fraction":1,`
		if !tc.verified {
			wantJSON = `"checked_against_published":` + map[bool]string{true: "false", false: "true"}[tc.unpublished] + `,"verified_solutions":0,"verified_fraction":0,`
		}
		if !strings.Contains(string(b), wantJSON) {
			t.Errorf("%s: --json is %s\nwant it to hold %s", tc.name, b, wantJSON)
		}
		line, clause := s.Human(), "not checked against a published count"
		if strings.Contains(line, clause) != tc.unpublished {
			t.Errorf("%s: summary %q; want %q in it only when unpublished", tc.name, line, clause)
		}
	}
}

// TestRemoteVerifyWiring: NewConfig gives remote workers
// DefaultRemoteVerifyFraction on an unpublished board only, and never
// for a synthetic load, whose made-up counts verification would take for
// lies.
func TestRemoteVerifyWiring(t *testing.T) {
	for _, tc := range []struct {
		unpublished, synthetic bool
		want                   float64
	}{
		{true, false, DefaultRemoteVerifyFraction},
		{false, false, 0},
		{true, true, 0},
	} {
		cfg := testConfig(8, 0)
		cfg.AsUnpublished, cfg.SyntheticLoad = tc.unpublished, tc.synthetic
		j, err := New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := j.svc.edge.remoteVerify; got != tc.want {
			t.Errorf("unpublished %v, synthetic %v: remote workers verified at %v, want %v", tc.unpublished, tc.synthetic, got, tc.want)
		}
		j.Close()
	}
	if DefaultRemoteVerifyFraction <= 0 || DefaultRemoteVerifyFraction > 0.05 {
		t.Errorf("DefaultRemoteVerifyFraction = %v: want a small share (0, 0.05]", DefaultRemoteVerifyFraction)
	}
}

// TestNodesSaturatedSummary: results whose node counts add past 2^64 leave
// the job's node count at 2^64-1, and the summary, its JSON, its human
// line and Status say it saturated.
func TestNodesSaturatedSummary(t *testing.T) {
	cfg := testConfig(6, 0)
	cfg.Depth, cfg.NoSplit = 1, true
	r := startJob(t, context.Background(), cfg)
	raw := dialRaw(t, r.addr)
	raw.ready(64)
	for m := raw.nextOf("assign", "ack", "drain"); m.GetDrain() == nil; m = raw.nextOf("assign", "ack", "drain") {
		if a := m.GetAssign(); a != nil {
			res := countResult(t, a)
			res.Nodes = 1 << 63
			raw.result(res)
		} else if got := m.GetAck().GetOutcome(); got != nqueenspb.Ack_OUTCOME_COMMITTED {
			t.Fatalf("result: %v, want COMMITTED", got)
		}
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 6)
	if s.Nodes != math.MaxUint64 || !s.NodesSaturated {
		t.Errorf("%d results of 2^63 nodes: nodes %d, saturated %v; want 2^64-1, true", s.Tasks, s.Nodes, s.NodesSaturated)
	}
	if b, _ := json.Marshal(s); !strings.Contains(string(b), `"nodes_saturated":true`) {
		t.Errorf("--json lacks \"nodes_saturated\":true: %s", b)
	}
	if line := s.Human(); !strings.Contains(line, "saturated") {
		t.Errorf("summary %q does not say the node count saturated", line)
	}
	if st := r.job.Status().Summary; !st.NodesSaturated {
		t.Errorf("Status: nodes %d, saturated %v; want saturated", st.Nodes, st.NodesSaturated)
	}
}
