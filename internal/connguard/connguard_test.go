package connguard

import (
	"fmt"
	"net"
	"testing"
)

// The guard's behaviour on a real coordinator (idle connections, floods,
// joins over TLS with a token) is tested in package coordinator
// (listener_test.go); these are its pieces alone.

// TestAddrKey: IPv4 peers count by address, IPv6 ones by /64.
func TestAddrKey(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		key  string
		loop bool
	}{
		{"192.0.2.7", "192.0.2.7", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"::ffff:192.0.2.7", "192.0.2.7", false},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64", false},
		{"2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64", false},
		{"::1", "::/64", true},
	} {
		key, loop := addrKey(&net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 1234})
		if key != tc.key || loop != tc.loop {
			t.Errorf("addrKey(%s) = %q, %v; want %q, %v", tc.ip, key, loop, tc.key, tc.loop)
		}
	}
}

// TestUnjoinedSet: the connection pushed out is the oldest of an address
// holding the most, and the counts follow adds and removes.
func TestUnjoinedSet(t *testing.T) {
	u := unjoinedSet{addrs: make(map[string]*addrConns)}
	if u.heaviestOldest() != nil {
		t.Fatal("heaviestOldest of an empty set is not nil")
	}
	for i, key := range []string{"a", "b", "a", "c", "a", "c"} {
		u.add(&guardConn{key: key, remote: fmt.Sprint(i)})
	}
	for _, step := range []struct {
		want string // remote of the connection to push out
		n    int
	}{{"0", 6}, {"", 5}, {"", 4}, {"", 3}, {"", 2}, {"", 1}} {
		got := u.heaviestOldest()
		if step.want != "" && got.remote != step.want {
			t.Errorf("heaviestOldest = %s, want %s", got.remote, step.want)
		}
		if u.n != step.n {
			t.Errorf("n = %d, want %d", u.n, step.n)
		}
		most := 0
		for _, a := range u.addrs {
			most = max(most, a.conns.Len())
		}
		if c := u.count(got.key); c != most {
			t.Errorf("pushed out a connection of %s, which holds %d; the most is %d", got.key, c, most)
		}
		u.remove(got)
		u.remove(got) // twice is harmless
	}
	if u.n != 0 || len(u.addrs) != 0 || u.heaviestOldest() != nil {
		t.Errorf("after removing all: n=%d, %d addresses", u.n, len(u.addrs))
	}
}

// TestCut: Cut closes a connection the guard admitted, so its peer reads
// EOF, and forgets it; an unknown address is reported so.
func TestCut(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := New(lis, DefaultLimits(8), nil)
	defer g.Close()
	client, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := g.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if g.Cut("127.0.0.1:1") {
		t.Error("Cut of an address never seen reported true")
	}
	if !g.Cut(client.LocalAddr().String()) {
		t.Fatal("Cut of the open connection reported false")
	}
	if n, err := client.Read(make([]byte, 1)); err == nil {
		t.Errorf("the client read %d bytes after the Cut, want EOF", n)
	}
	if open, _ := g.Counts(); open != 0 {
		t.Errorf("%d connections open after the Cut, want 0", open)
	}
	server.Close() // a second close is harmless
}
