package status

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/auth"
)

func get(t *testing.T, c *http.Client, u string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestAPIStatusIsSummary checks /api/status carries every --json field of
// the Summary under its own name with the same value, then the live fields.
func TestAPIStatusIsSummary(t *testing.T) {
	job := newFakeJob(10)
	base := serve(t, NewHandler(job, Options{}))
	for range 4 {
		job.Advance()
	}
	_, body := get(t, http.DefaultClient, base+"/api/status")
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("/api/status is not JSON: %v\n%s", err, body)
	}
	sb, _ := json.Marshal(job.Status().Summary)
	var want map[string]any
	json.Unmarshal(sb, &want)
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("/api/status %q = %v, want the summary's %v", k, got[k], v)
		}
	}
	if want["solutions"] != float64(fakeTotal*4/10) {
		t.Errorf("summary solutions = %v, want %d (the fake's 4 of 10 steps)", want["solutions"], fakeTotal*4/10)
	}
	var a APIStatus
	json.Unmarshal(body, &a)
	if len(a.WorkersAttached) != 2 || a.WorkersAttached[0].Name != "alpha" || a.WorkersAttached[0].Address != "127.0.0.1:40001" {
		t.Errorf("workers_attached = %+v, want alpha and beta", a.WorkersAttached)
	}
	if a.Slots != 3 || a.TasksLeased != 3 || a.Fraction != 0.4 || a.BusySeconds != 4 || a.WorkTotal != fakeWork {
		t.Errorf("slots %d, tasks_leased %d, fraction %v, busy %v, work_total %v; want 3, 3, 0.4, 4, %v",
			a.Slots, a.TasksLeased, a.Fraction, a.BusySeconds, a.WorkTotal, fakeWork)
	}
	// 40% of the work in 4 busy seconds: 60% left takes 6 s.
	if a.ETASeconds == nil || *a.ETASeconds != 6 {
		t.Errorf("eta_seconds = %v, want 6", a.ETASeconds)
	}
	for _, k := range []string{"eta_seconds", "work_done", "work_total", "busy_seconds", "tasks_queued", "tasks_leased", "tasks_restored", "listing", "workers_attached", "recent", "done"} {
		if _, ok := got[k]; !ok {
			t.Errorf("/api/status has no %q", k)
		}
	}
}

func TestMetrics(t *testing.T) {
	job := newFakeJob(4)
	reg := NewRegistry()
	observe := JournalSyncObserver(reg)
	observe(3 * time.Millisecond)
	base := serve(t, NewHandler(job, Options{Registry: reg}))
	for range 4 {
		job.Advance()
	}
	resp, body := get(t, http.DefaultClient, base+"/metrics")
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics = %d", resp.StatusCode)
	}
	text := string(body)
	for _, want := range []string{
		"nqueens_solutions 2.279184e+06\n",
		"nqueens_unique_solutions 285053\n",
		`nqueens_tasks{state="committed"} 40` + "\n",
		`nqueens_tasks{state="queued"} 0` + "\n",
		"nqueens_workers 2\n",
		"nqueens_slots 3\n",
		`nqueens_worker_tasks_committed_total{worker="alpha"} 26` + "\n",
		`nqueens_worker_nodes_total{worker="beta"}`,
		"nqueens_lease_expiries_total 1\n",
		"nqueens_requeues_total 1\n",
		"nqueens_runs_total 3\n",
		"nqueens_rejections_total 2\n",
		"nqueens_conflicts_total 0\n",
		"nqueens_quarantines_total 0\n",
		"nqueens_nodes_total 4e+09\n",
		"nqueens_done 1\n",
		`nqueens_job_info{depth="3",engine="backtrack",kind="count",n="15"} 1` + "\n",
		"nqueens_journal_fsync_seconds_count 1\n",
		"nqueens_build_info{",
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	promtool(t, body)
}

// promtool runs `promtool check metrics` (Debian's prometheus package) on
// an exposition.
func promtool(t *testing.T, body []byte) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus): the exposition format was not checked")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestToken(t *testing.T) {
	tok := "s3cret-token"
	base := serve(t, NewHandler(newFakeJob(3), Options{Token: auth.NewToken(tok)}))
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path string
		hdr  []string
		want int
	}{
		{"/healthz", nil, 200},
		{"/api/status", nil, 401},
		{"/metrics", nil, 401},
		{"/events", nil, 401},
		{"/board.svg?cols=2,4,1,3", nil, 401},
		{"/", nil, http.StatusSeeOther}, // to /login
		{"/login", nil, 200},
		{"/api/status", []string{"Authorization", "Bearer " + tok}, 200},
		{"/metrics", []string{"Authorization", "bearer " + tok}, 200},
		{"/api/status", []string{"Authorization", "Bearer wrong"}, 401},
		{"/api/status", []string{"Cookie", cookieName + "=" + tok}, 401}, // the cookie is not the token
		{"/api/status", []string{"Cookie", cookieName + "=" + cookieValue(cookieKey(auth.NewToken(tok)), time.Now().Add(time.Hour))}, 200},
		{"/?token=wrong", nil, http.StatusSeeOther},
	} {
		resp, body := get(t, noRedirect, base+tc.path, tc.hdr...)
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s %v = %d, want %d", tc.path, tc.hdr, resp.StatusCode, tc.want)
		}
		if strings.Contains(string(body), tok) {
			t.Errorf("GET %s leaked the token", tc.path)
		}
	}
	// ?token= logs a browser in once: cookie, then the page without the token.
	resp, _ := get(t, noRedirect, base+"/?token="+tok)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("GET /?token= = %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || strings.Contains(cookies[0].Value, tok) {
		t.Fatalf("cookies %+v, want one HttpOnly cookie without the token", cookies)
	}
	resp, body := get(t, noRedirect, base+"/", "Cookie", cookies[0].String())
	if resp.StatusCode != 200 || !strings.Contains(string(body), "N-Queens") {
		t.Errorf("GET / with the cookie = %d, want the dashboard", resp.StatusCode)
	}
	// The login form sets the same cookie; a wrong token gets 401 and the form.
	resp, err := noRedirect.PostForm(base+"/login", url.Values{"token": {tok}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("POST /login = %d with %d cookies, want 303 and the cookie", resp.StatusCode, len(resp.Cookies()))
	}
	resp, err = noRedirect.PostForm(base+"/login", url.Values{"token": {"nope"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Errorf("POST /login with a wrong token = %d with %d cookies, want 401 and none", resp.StatusCode, len(resp.Cookies()))
	}
}

func TestPprofOnlyWhenAsked(t *testing.T) {
	off := serve(t, NewHandler(newFakeJob(3), Options{}))
	on := serve(t, NewHandler(newFakeJob(3), Options{Pprof: true}))
	if resp, _ := get(t, http.DefaultClient, off+"/debug/pprof/"); resp.StatusCode != 404 {
		t.Errorf("/debug/pprof/ without Pprof = %d, want 404", resp.StatusCode)
	}
	if resp, body := get(t, http.DefaultClient, on+"/debug/pprof/"); resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine") {
		t.Errorf("/debug/pprof/ with Pprof = %d, want the index", resp.StatusCode)
	}
}

func TestBoardSVG(t *testing.T) {
	base := serve(t, NewHandler(newFakeJob(3), Options{}))
	resp, body := get(t, http.DefaultClient, base+"/board.svg?cols=2,4,1,3")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || strings.Count(string(body), `class="queen"`) != 4 {
		t.Errorf("/board.svg?cols=2,4,1,3 = %d %q with %d queens, want an SVG of 4 queens",
			resp.StatusCode, resp.Header.Get("Content-Type"), strings.Count(string(body), `class="queen"`))
	}
	for _, bad := range []string{"", "0,2", "3,1", "x", strings.Repeat("1,", 200) + "1"} {
		if resp, _ := get(t, http.DefaultClient, base+"/board.svg?cols="+bad); resp.StatusCode != 400 {
			t.Errorf("/board.svg?cols=%.20s = %d, want 400", bad, resp.StatusCode)
		}
	}
}

// TestEventsStream reads /events: a status at once, the history of events,
// new events as they happen, statuses that advance, and a bound on streams.
func TestEventsStream(t *testing.T) {
	job := newFakeJob(4)
	base := serve(t, NewHandler(job, Options{Interval: 50 * time.Millisecond, MaxStreams: 1}))
	resp, err := http.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("/events Content-Type %q", ct)
	}
	if second, _ := get(t, http.DefaultClient, base+"/events"); second.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a second /events past MaxStreams 1 = %d, want 503", second.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var kinds []string
	var lastSols uint64
	deadline := time.Now().Add(10 * time.Second)
	name := ""
	for sc.Scan() && time.Now().Before(deadline) {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name == "event":
			var e APIEvent
			json.Unmarshal([]byte(line[6:]), &e)
			kinds = append(kinds, e.Kind)
		case strings.HasPrefix(line, "data: ") && name == "status":
			var a APIStatus
			if err := json.Unmarshal([]byte(line[6:]), &a); err != nil {
				t.Fatal(err)
			}
			if a.Solutions < lastSols {
				t.Fatalf("solutions went back from %d to %d", lastSols, a.Solutions)
			}
			lastSols = a.Solutions
			if a.Done {
				goto end
			}
			job.Advance()
		}
	}
end:
	if lastSols != fakeTotal {
		t.Errorf("last status had %d solutions, want %d", lastSols, fakeTotal)
	}
	if want := []string{"join", "join", "expire", "done"}; !reflect.DeepEqual(kinds, want) {
		// The done event may come after the done status; wait for it.
		if len(kinds) != 3 || !reflect.DeepEqual(kinds, want[:3]) {
			t.Errorf("events %v, want %v", kinds, want)
		}
	}
}
