package coordinator

import "testing"

func TestBars(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{bar(progress{Done: 5, Total: 10, Solutions: 92, Workers: 2}, 1500, "3s"),
			"[###############...............] 5/10 tasks  92 solutions  1.5k/s  ETA 3s  2 workers"},
		{bar(progress{Total: 0}, 0, "?"),
			"[..............................] 0/0 tasks  0 solutions  0/s  ETA ?  0 workers"},
		{writeBar(7386256, 14772512), "[###############...............] writing 7386256/14772512 solutions"},
		{writeBar(0, 0), "[..............................] writing 0/0 solutions"},
		{writeBar(9, 3), "[##############################] writing 9/3 solutions"},
	} {
		if tc.got != tc.want {
			t.Errorf("bar = %q, want %q", tc.got, tc.want)
		}
	}
}
