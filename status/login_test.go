package status

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/auth"
)

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// clientFrom is an HTTP client that connects from the loopback address
// from and follows no redirect.
func clientFrom(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func postLogin(t *testing.T, c *http.Client, base, tok string) *http.Response {
	t.Helper()
	resp, err := c.PostForm(base+"/login", url.Values{"token": {tok}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestLoginRateLimit: one address gets LoginBurst guesses,
// then 429 with Retry-After, the right token included, until a guess
// comes back after LoginEvery; another address is not held up, and
// ?token= guesses count too.
func TestLoginRateLimit(t *testing.T) {
	tok := "s3cret-token"
	clock := &fakeClock{t: time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)}
	base := serve(t, NewHandler(newFakeJob(3), Options{Token: auth.NewToken(tok), Now: clock.Now}))
	guesser := clientFrom("127.0.0.5")
	codes := map[int]int{}
	for range 3000 {
		codes[postLogin(t, guesser, base, "wrong").StatusCode]++
	}
	if codes[401] != LoginBurst || codes[429] != 3000-LoginBurst {
		t.Errorf("3000 wrong logins from one address: %v, want %d × 401 and the rest 429", codes, LoginBurst)
	}
	if resp := postLogin(t, guesser, base, tok); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the right token from the limited address: %d (Retry-After %q), want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp, err := guesser.Get(base + "/?token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 {
		t.Errorf("?token= guess from the limited address: %d, want 429", resp.StatusCode)
	}
	if resp := postLogin(t, clientFrom("127.0.0.6"), base, tok); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the right token from another address: %d, want 303", resp.StatusCode)
	}
	clock.add(LoginEvery)
	if resp := postLogin(t, guesser, base, tok); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the right token %v later: %d, want 303", LoginEvery, resp.StatusCode)
	}
}

// TestCookieExpires: the login cookie works until CookieTTL
// and not after, and says so to the browser; a cookie whose end was
// changed is refused.
func TestCookieExpires(t *testing.T) {
	tok := "s3cret-token"
	clock := &fakeClock{t: time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)}
	base := serve(t, NewHandler(newFakeJob(3), Options{Token: auth.NewToken(tok), Now: clock.Now}))
	c := clientFrom("127.0.0.7")
	resp := postLogin(t, c, base, tok)
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].MaxAge != int(CookieTTL.Seconds()) || strings.Contains(cookies[0].Value, tok) {
		t.Fatalf("login cookies %+v: want one, Max-Age %d, without the token", cookies, int(CookieTTL.Seconds()))
	}
	status := func(cookie string) int {
		t.Helper()
		resp, _ := get(t, c, base+"/api/status", "Cookie", cookieName+"="+cookie)
		return resp.StatusCode
	}
	v := cookies[0].Value
	clock.add(CookieTTL - time.Second)
	if got := status(v); got != 200 {
		t.Errorf("the cookie a second before it expires: %d, want 200", got)
	}
	end, mac, _ := strings.Cut(v, ".")
	if got := status(end + "9." + mac); got != 401 {
		t.Errorf("the cookie with its end pushed back: %d, want 401", got)
	}
	clock.add(time.Second)
	if got := status(v); got != 401 {
		t.Errorf("the cookie at its end: %d, want 401", got)
	}
}
