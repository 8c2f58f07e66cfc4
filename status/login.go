package status

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/nqueens/auth"
)

// Login bounds: /login took about 7,000 guesses a second on
// one connection, each an INFO line, and its cookie never expired.
const (
	// CookieTTL is how long a login lasts: the cookie carries its end,
	// signed with a key derived from the token, and the browser drops it
	// then too.
	CookieTTL = 12 * time.Hour
	// LoginBurst token guesses (the login form, ?token=) one address may
	// make at once, then one per LoginEvery.
	LoginBurst = 10
	LoginEvery = 6 * time.Second
	// maxLoginAddrs caps the addresses the limiter remembers; when it is
	// full of addresses still limited, a guess from a new one is refused.
	maxLoginAddrs = 4096
)

// cookieKey is the key that signs login cookies: a hash of the token, so
// the token itself never sits in a browser's cookie jar.
func cookieKey(t auth.Token) []byte {
	s := sha256.Sum256([]byte("nqueens status cookie\x00" + t.Reveal()))
	return s[:]
}

// cookieValue is a login cookie that lasts until end: "END.MAC", END in
// Unix seconds and MAC its HMAC-SHA256 under the token's cookie key.
func cookieValue(key []byte, end time.Time) string {
	e := strconv.FormatInt(end.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(e))
	return e + "." + hex.EncodeToString(m.Sum(nil))
}

// cookieValid reports whether v is a cookie signed with key that has not
// yet expired at now. The MAC is compared in constant time.
func cookieValid(key []byte, v string, now time.Time) bool {
	e, mac, ok := strings.Cut(v, ".")
	if !ok {
		return false
	}
	end, err := strconv.ParseInt(e, 10, 64)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(e))
	got, err := hex.DecodeString(mac)
	return err == nil && hmac.Equal(got, m.Sum(nil)) && now.Unix() < end
}

// loginLimiter allows each address LoginBurst guesses at once, then one
// per LoginEvery. Safe for concurrent use.
type loginLimiter struct {
	mu    sync.Mutex
	addrs map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// allow reports whether the address of remote may guess now.
func (l *loginLimiter) allow(remote string, now time.Time) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.addrs == nil {
		l.addrs = make(map[string]*bucket)
	}
	b := l.addrs[host]
	if b == nil {
		if len(l.addrs) >= maxLoginAddrs {
			l.pruneLocked(now)
			if len(l.addrs) >= maxLoginAddrs {
				return false
			}
		}
		b = &bucket{tokens: LoginBurst, last: now}
		l.addrs[host] = b
	}
	b.tokens = min(LoginBurst, b.tokens+now.Sub(b.last).Seconds()/LoginEvery.Seconds())
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// pruneLocked forgets the addresses whose guesses have all come back.
func (l *loginLimiter) pruneLocked(now time.Time) {
	for host, b := range l.addrs {
		if b.tokens+now.Sub(b.last).Seconds()/LoginEvery.Seconds() >= LoginBurst {
			delete(l.addrs, host)
		}
	}
}

// tooMany answers a guess over the rate: 429 with when to try again.
func tooMany(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(LoginEvery.Seconds())))
	http.Error(w, "429 too many login attempts: try again later", http.StatusTooManyRequests)
}
