package status

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/coordinator"
)

// N=27's counts (OEIS A000170, A002562): both above 2^53, so a JSON number
// parsed as a float64 (JavaScript, jq) loses their last digits.
const (
	n27Total  = "234907967154122528"
	n27Unique = "29363495934315694"
	n27Nodes  = "9007199254740993" // 2^53 + 1, the first integer a float64 cannot hold
)

// bigJob is the fake job with N=27-sized counts: 3/4 of both totals while
// it runs (so the page's first render shows other digits), the totals
// once done.
type bigJob struct{ *fakeJob }

func (b bigJob) Status() coordinator.Status {
	s := b.fakeJob.Status()
	s.Summary.N = 27
	s.Summary.Solutions, s.Summary.Unique = 234907967154122528/4*3, 29363495934315694/4*3
	if s.Done {
		s.Summary.Solutions, s.Summary.Unique = 234907967154122528, 29363495934315694
	}
	s.Summary.Nodes = 1<<53 + 1
	return s
}

// TestExactCountsInJSON reads /api/status and the first status message of
// /events as a JavaScript reader would (numbers as float64): the numbers
// have lost digits, the strings in "exact" have not.
func TestExactCountsInJSON(t *testing.T) {
	job := bigJob{newFakeJob(2)}
	job.Advance()
	job.Advance()
	base := serve(t, NewHandler(job, Options{}))
	_, body := get(t, http.DefaultClient, base+"/api/status")
	checkExact(t, "/api/status", body)

	resp, err := http.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"exact"`) {
			checkExact(t, "/events", []byte(data))
			return
		}
	}
	t.Fatalf("/events sent no status message: %v", sc.Err())
}

func checkExact(t *testing.T, where string, body []byte) {
	t.Helper()
	var st struct {
		Unique float64           `json:"unique"`
		Exact  map[string]string `json:"exact"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("%s: %v\n%s", where, err, body)
	}
	if got := strconv.FormatFloat(st.Unique, 'f', 0, 64); got == n27Unique {
		t.Errorf("%s: unique read as a float64 is %s, exact: the test no longer shows the rounding", where, got)
	}
	want := map[string]string{"solutions": n27Total, "unique": n27Unique, "nodes": n27Nodes}
	for k, v := range want {
		if st.Exact[k] != v {
			t.Errorf("%s: exact.%s = %q, want %q", where, k, st.Exact[k], v)
		}
	}
}
