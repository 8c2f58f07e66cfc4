package status

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/render"
)

// DefaultMaxStreams bounds the dashboards open at once (/events streams):
// each holds a goroutine and a connection for as long as the page is open,
// and a few people watching a run need a handful; past the bound a new one
// gets 503 and the page retries.
const DefaultMaxStreams = 32

// DefaultInterval is how often /events sends a status message.
const DefaultInterval = time.Second

// eventPoll is how often /events looks for new events between status
// messages, so joins and expiries show within a fraction of a second.
const eventPoll = 250 * time.Millisecond

// cookieName holds the page's login; its value is derived from the token,
// never the token itself.
const cookieName = "nqueens_status"

// Options configure NewHandler.
type Options struct {
	// Token, when set, is required on everything but /healthz: as
	// "Authorization: Bearer TOKEN" (Prometheus' authorization or
	// bearer_token_file), or the cookie that ?token=TOKEN or the login
	// form sets for a browser.
	Token auth.Token
	// Pprof serves net/http/pprof under /debug/pprof/.
	Pprof bool
	// Registry gathers /metrics; nil makes a NewRegistry. The job's
	// collector is registered on it.
	Registry *prometheus.Registry
	// MaxStreams bounds the open /events streams (0: DefaultMaxStreams).
	MaxStreams int
	// Interval is the period of /events status messages (0: DefaultInterval).
	Interval time.Duration
	// Log receives request problems; nil discards them.
	Log hclog.Logger
	// Now is the clock (nil: time.Now), for tests.
	Now func() time.Time
}

// handler serves one Source.
type handler struct {
	src     Source
	opts    Options
	cookie  []byte            // the key that signs login cookies (login.go)
	logins  loginLimiter      // token guesses per address
	want    [sha256.Size]byte // sha256 of the token
	streams chan struct{}     // a slot per open /events stream
	floor   floor             // the progress shown so far: it never falls
	shared  sharedStatus      // the /events streams' common snapshot (events.go)
	mux     *http.ServeMux
}

// NewHandler returns the status server's handler for src: the dashboard at
// /, /events (server-sent events), /api/status, /api/events, /board.svg,
// /metrics, /healthz, /login, and /debug/pprof/ with opts.Pprof.
func NewHandler(src Source, opts Options) http.Handler {
	if opts.Registry == nil {
		opts.Registry = NewRegistry()
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Log == nil {
		opts.Log = hclog.NewNullLogger()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Registry.MustRegister(newCollector(src))
	h := &handler{src: src, opts: opts, streams: make(chan struct{}, opts.MaxStreams), mux: http.NewServeMux()}
	h.want = sha256.Sum256([]byte(opts.Token.Reveal()))
	h.cookie = cookieKey(opts.Token)
	h.routes()
	return h
}

func (h *handler) routes() {
	m := h.mux
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	m.HandleFunc("GET /login", h.loginForm)
	m.HandleFunc("POST /login", h.login)
	m.Handle("GET /metrics", h.guard(promhttp.HandlerFor(h.opts.Registry, promhttp.HandlerOpts{
		ErrorLog: hclogPrinter{h.opts.Log}, Registry: h.opts.Registry,
	})))
	m.Handle("GET /api/status", h.guard(http.HandlerFunc(h.apiStatus)))
	m.Handle("GET /api/events", h.guard(http.HandlerFunc(h.apiEvents)))
	m.Handle("GET /events", h.guard(http.HandlerFunc(h.events)))
	m.Handle("GET /board.svg", h.guard(http.HandlerFunc(h.board)))
	m.Handle("GET /{$}", h.guard(http.HandlerFunc(h.dashboard)))
	if h.opts.Pprof {
		m.Handle("GET /debug/pprof/", h.guard(noDeadline(http.HandlerFunc(pprof.Index))))
		m.Handle("GET /debug/pprof/cmdline", h.guard(noDeadline(http.HandlerFunc(pprof.Cmdline))))
		m.Handle("GET /debug/pprof/profile", h.guard(noDeadline(http.HandlerFunc(pprof.Profile))))
		m.Handle("GET /debug/pprof/symbol", h.guard(noDeadline(http.HandlerFunc(pprof.Symbol))))
		m.Handle("GET /debug/pprof/trace", h.guard(noDeadline(http.HandlerFunc(pprof.Trace))))
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the token (bearer or cookie); both
// sides are hashed before a constant-time compare, so neither the token
// nor its length leaks through timing.
func (h *handler) authorized(r *http.Request) bool {
	if !h.opts.Token.IsSet() {
		return true
	}
	if v := r.Header.Get("Authorization"); len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		got := sha256.Sum256([]byte(v[7:]))
		return subtle.ConstantTimeCompare(got[:], h.want[:]) == 1
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return cookieValid(h.cookie, c.Value, h.opts.Now())
	}
	return false
}

// guard lets authorized requests through. A browser that brings
// ?token=TOKEN gets the cookie and is sent to the same page without the
// token in its address; a page request without a login goes to /login;
// anything else gets 401.
func (h *handler) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" && h.opts.Token.IsSet() {
			if !h.logins.allow(r.RemoteAddr, h.opts.Now()) {
				tooMany(w)
				return
			}
			got, want := sha256.Sum256([]byte(t)), h.want
			if subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
				h.setCookie(w, r)
				q := r.URL.Query()
				q.Del("token")
				u := *r.URL
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		}
		if h.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="nqueens"`)
		http.Error(w, "401 unauthorized: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	})
}

func (h *handler) setCookie(w http.ResponseWriter, r *http.Request) {
	now := h.opts.Now()
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: cookieValue(h.cookie, now.Add(CookieTTL)), Path: "/",
		MaxAge: int(CookieTTL.Seconds()), Expires: now.Add(CookieTTL),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
}

func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	if h.opts.Token.IsSet() && !h.logins.allow(r.RemoteAddr, h.opts.Now()) {
		tooMany(w)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	got := sha256.Sum256([]byte(r.PostForm.Get("token")))
	if !h.opts.Token.IsSet() || subtle.ConstantTimeCompare(got[:], h.want[:]) == 1 {
		h.setCookie(w, r)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.opts.Log.Info("status login refused", "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusUnauthorized)
	h.renderLogin(w, true)
}

func (h *handler) loginForm(w http.ResponseWriter, r *http.Request) {
	if h.authorized(r) {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.renderLogin(w, false)
}

// apiStatus writes every worker's row, or with ?workers=K the K that
// TopWorkers keeps.
func (h *handler) apiStatus(w http.ResponseWriter, r *http.Request) {
	rows, err := workerRows(r, -1)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a := h.snapshot()
	if rows >= 0 {
		a.TopWorkers(rows)
	}
	writeJSON(w, a)
}

func (h *handler) apiEvents(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
	writeJSON(w, apiEvents(h.src.Events(after)))
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}

// maxBoardQuery bounds /board.svg's query: 32 columns of two digits.
const maxBoardQuery = 256

// board draws one solution, ?cols=1,5,8,6,3,7,2,4 (1-based, as Status.Recent
// holds them), with render.WriteSVG.
func (h *handler) board(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("cols")
	if len(q) > maxBoardQuery {
		http.Error(w, "cols too long", http.StatusBadRequest)
		return
	}
	var cols []int
	for _, f := range strings.Split(q, ",") {
		c, err := strconv.Atoi(f)
		if err != nil {
			http.Error(w, "cols: want 1-based columns separated by commas", http.StatusBadRequest)
			return
		}
		cols = append(cols, c-1)
	}
	var buf bytes.Buffer
	if err := render.WriteSVG(&buf, cols, r.URL.Query().Get("caption")); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "private, max-age=86400") // a board never changes
	w.Write(buf.Bytes())
}

// noDeadline lifts the server's write timeout for responses that take
// long by design (pprof profiles and traces of ?seconds=N).
func noDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		next.ServeHTTP(w, r)
	})
}

// hclogPrinter lets promhttp report gathering errors through hclog.
type hclogPrinter struct{ log hclog.Logger }

func (p hclogPrinter) Println(v ...any) {
	p.log.Warn("metrics gathering failed", "error", strings.TrimSpace(fmt.Sprintln(v...)))
}

// snapshot is the job's status as this server shows it: progress held at
// its highest so the page, the API and the stream never go backwards.
func (h *handler) snapshot() APIStatus {
	s := h.src.Status()
	a := NewAPIStatus(s, h.opts.Now())
	a.Fraction, a.EstimateGrew = h.floor.hold(a.Fraction)
	if d, ok := durableOf(h.src, s.Summary.Committed); ok {
		a.TasksDurable = &d
	}
	return a
}
