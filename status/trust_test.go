package status

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/nqueens/nqueens/coordinator"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/worker"
)

// trustRunTimeout bounds one N=8 run on a loaded machine.
const trustRunTimeout = 60 * time.Second

// inflateNodes is a worker's stream interceptor that reports 2^63 nodes
// for every task (a man in the middle): two results add past 2^64.
func inflateNodes(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	return inflating{s}, err
}

type inflating struct{ grpc.ClientStream }

func (s inflating) SendMsg(m any) error {
	if r, ok := m.(*nqueenspb.WorkRequest); ok {
		r = proto.Clone(r).(*nqueenspb.WorkRequest) // the caller's message is not ours to change
		m = r
		if res := r.GetResult(); res != nil {
			res.Nodes = 1 << 63
		}
		for _, res := range r.GetResultBatch().GetResults() {
			res.Nodes = 1 << 63
		}
	}
	return s.ClientStream.SendMsg(m)
}

// runTrustJob counts N=8 with cfg and, when remote, one remote worker
// whose results claim 2^63 nodes each, and returns the finished job.
func runTrustJob(t *testing.T, cfg coordinator.Config, remote bool) *coordinator.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), trustRunTimeout)
	defer cancel()
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	if remote {
		go worker.Run(ctx, worker.Config{Join: job.Addr(), Slots: 1, Name: "mitm", JoinTimeout: 10 * time.Second, NoRuns: true,
			DialOptions: []grpc.DialOption{grpc.WithStreamInterceptor(inflateNodes)}}, hclog.NewNullLogger())
	}
	sum, err := job.Run(ctx)
	if err != nil || sum.Solutions != 92 {
		t.Fatalf("N=8: %d solutions, %v; want 92", sum.Solutions, err)
	}
	return job
}

// TestTrustShown: a total the published count cannot check (a board
// treated as unpublished), fully verified, whose node counts added past
// 2^64 through a lying link, and a plain checked run: /api/status, the
// dashboard and /metrics each say whether the total was checked against
// the published count, how much was verified, and whether the node count
// saturated (the page with a mark next to the node count).
func TestTrustShown(t *testing.T) {
	for _, tc := range []struct {
		name           string
		remote         bool
		api, page, met []string
	}{
		{"unpublished, verified, saturated", true,
			[]string{`"checked_against_published":false`, `"verified_fraction":1`, `"verified_solutions_fraction":1`, `"nodes_saturated":true`, `"nodes":"18446744073709551615"`},
			[]string{`class="sat" title="the node counter stopped at 2^64-1: the true count is higher">saturated`, "not checked against a published count"},
			[]string{"nqueens_checked_against_published 0", "nqueens_nodes_saturated 1", `nqueens_verified_fraction{of="tasks"} 1`, `nqueens_verified_fraction{of="solutions"} 1`, "nqueens_verified_solutions_total 92"}},
		{"published", false,
			[]string{`"checked_against_published":true`, `"nodes_saturated":false`},
			[]string{`class="sat" title="the node counter stopped at 2^64-1: the true count is higher" hidden>`, "checked against the published count"},
			[]string{"nqueens_checked_against_published 1", "nqueens_nodes_saturated 0", `nqueens_verified_fraction{of="tasks"} 0`}},
	} {
		cfg := coordinator.NewConfig(8)
		cfg.Listen, cfg.Depth = "127.0.0.1:0", 2
		if tc.remote {
			cfg.Workers, cfg.AsUnpublished, cfg.RemoteVerifyFraction = 0, true, 1
		} else {
			cfg.Workers = 2
		}
		job := runTrustJob(t, cfg, tc.remote)
		reg := NewRegistry()
		base := serve(t, NewHandler(job, Options{Registry: reg}))
		for _, p := range []struct {
			path string
			want []string
		}{{"/api/status", tc.api}, {"/", tc.page}, {"/metrics", tc.met}} {
			_, body := get(t, http.DefaultClient, base+p.path)
			for _, w := range p.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("%s: %s lacks %s:\n%s", tc.name, p.path, w, excerpt(string(body), p.path))
				}
			}
		}
	}
}

// excerpt is the part of a body worth showing in a failure.
func excerpt(body, path string) string {
	switch path {
	case "/metrics":
		return grep(body, "nqueens_") // the job's own series
	case "/api/status":
		var m map[string]any
		if json.Unmarshal([]byte(body), &m) == nil {
			b, _ := json.Marshal(map[string]any{"checked_against_published": m["checked_against_published"], "verified": m["verified"],
				"verified_fraction": m["verified_fraction"], "nodes": m["nodes"], "nodes_saturated": m["nodes_saturated"], "exact": m["exact"]})
			return string(b)
		}
	}
	if i := strings.Index(body, `id="nodes"`); i >= 0 {
		return body[i:min(len(body), i+600)]
	}
	return body[:min(len(body), 2000)]
}
