package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/nqueens/nqueens/render"
)

// htmlData is what the page's script replays: the steps as (kind, row,
// col) triples and the two caption lines of each.
type htmlData struct {
	N        int      `json:"n"`
	Steps    []int    `json:"steps"`
	Headings []string `json:"headings"`
	Details  []string `json:"details"`
	Delay    int      `json:"delay"` // milliseconds a step while playing
}

// WriteHTML writes t as one self-contained HTML page (inline CSS and
// script, nothing fetched): the board as a grid of squares and buttons to
// play, pause, step and restart. The board element carries data-step (the
// 1-based step shown) and each square its state as classes (q: a queen,
// att: attacked, conf: the square refused, ghost: a queen tried in vain or
// taken off, sol: a solution's queen), so tests can read what is shown.
func WriteHTML(w io.Writer, t *Trace) error {
	d := htmlData{N: t.N, Delay: stepDelay * 10}
	t.Frames(func(f Frame) bool {
		d.Steps = append(d.Steps, int(f.Step.Kind), f.Step.Row, f.Step.Col)
		d.Headings = append(d.Headings, t.Heading(f.Index))
		d.Details = append(d.Details, f.Detail())
		return true
	})
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	g, pal := layout(t.N), render.Colors()
	_, shadeDark := squareColours(0, 1)
	_, shadeLight := squareColours(0, 0)
	crown := func(c string) string {
		svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" fill="` + c + `">` + render.QueenSymbol + `</svg>`
		return `url("data:image/svg+xml,` + strings.ReplaceAll(url.PathEscape(svg), "%2F", "/") + `")`
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, htmlPage, t.N, t.N, g.Cell, g.Cell, g.Cell,
		hex(pal.Background), hex(pal.Text), hex(pal.Frame),
		hex(pal.Light), hex(pal.Dark), hex(shadeLight), hex(shadeDark),
		crown(hex(pal.Queen)), crown(hex(ghostC)), hex(conflictC), hex(attackerC), hex(solutionC), hex(pal.Queen),
		t.N, data, htmlScript)
	return bw.Flush()
}

// htmlPage is the page; its verbs are filled by WriteHTML in order.
const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>N=%d · backtracking</title>
<style>
body{font-family:Go,'DejaVu Sans',Arial,sans-serif;margin:16px}
#board{display:grid;grid-template-columns:repeat(%d,%dpx);grid-auto-rows:%dpx;width:max-content;border:2px solid;margin-bottom:10px}
.sq{width:%dpx;height:100%%;box-sizing:border-box;background-size:100%% 100%%;background-repeat:no-repeat}
body{background:%s;color:%s}#board{border-color:%s}
.light{background-color:%s}.dark{background-color:%s}
.light.att{background-color:%s}.dark.att{background-color:%s}
.q{background-image:%s}.ghost{background-image:%s}
.conf{background-color:%s!important}.attacker{outline:3px solid %s;outline-offset:-3px}
.sol{background-color:%s!important}.placed{outline:3px solid %s;outline-offset:-3px}
#heading{font-size:15px}#detail{font-size:14px;margin:4px 0 10px}
button{font:inherit;margin-right:6px}
</style>
</head>
<body>
<div id="board" data-step="1" data-n="%d"></div>
<div id="heading"></div>
<div id="detail"></div>
<button id="play" type="button">Play</button><button id="step" type="button">Step</button><button id="restart" type="button">Restart</button>
<script>
const trace = %s;
%s
</script>
</body>
</html>
`

// htmlScript replays the steps: show(i) draws the board after step i.
const htmlScript = `(function () {
  const n = trace.n, steps = trace.steps, count = steps.length / 3;
  const PLACE = 0, CONFLICT = 1, BACKTRACK = 2, SOLUTION = 3;
  const board = document.getElementById("board");
  const squares = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const d = document.createElement("div");
      d.dataset.base = "sq " + ((r + c) % 2 ? "dark" : "light");
      d.className = d.dataset.base;
      board.appendChild(d);
      squares.push(d);
    }
  }
  let at = -1, cols = [], timer = null;
  function attacks(qr, qc, r, c) { const d = qc - c; return d === 0 || d === r - qr || d === qr - r; }
  function apply(i) {
    const k = steps[3 * i], r = steps[3 * i + 1], c = steps[3 * i + 2];
    if (k === PLACE) { cols = cols.slice(0, r); cols.push(c); }
    if (k === BACKTRACK) { cols = cols.slice(0, r); }
  }
  function draw() {
    const k = steps[3 * at], sr = steps[3 * at + 1], sc = steps[3 * at + 2];
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const cls = [];
        if (r >= cols.length && cols.some((qc, q) => attacks(q, qc, r, c))) cls.push("att");
        if (cols[r] === c) cls.push("q");
        if (k === SOLUTION && cols[r] === c) cls.push("sol");
        if (k === CONFLICT && r === sr && c === sc) cls.push("conf", "ghost");
        if (k === CONFLICT && cols[r] === c && attacks(r, c, sr, sc)) cls.push("attacker");
        if (k === BACKTRACK && r === sr && c === sc) cls.push("ghost");
        if (k === PLACE && r === sr && c === sc) cls.push("placed");
        const sq = squares[r * n + c];
        sq.className = sq.dataset.base + (cls.length ? " " + cls.join(" ") : "");
      }
    }
    board.dataset.step = String(at + 1);
    document.getElementById("heading").textContent = trace.headings[at];
    document.getElementById("detail").textContent = trace.details[at];
  }
  function show(i) {
    if (i < at) { at = -1; cols = []; }
    while (at < i) { at++; apply(at); }
    draw();
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } document.getElementById("play").textContent = "Play"; }
  function forward() { if (at + 1 < count) { show(at + 1); } else { stop(); } }
  document.getElementById("step").addEventListener("click", function () { stop(); forward(); });
  document.getElementById("restart").addEventListener("click", function () { stop(); show(0); });
  document.getElementById("play").addEventListener("click", function () {
    if (timer) { stop(); return; }
    if (at + 1 >= count) { show(0); }
    timer = setInterval(forward, trace.delay);
    this.textContent = "Pause";
  });
  if (count > 0) { show(0); }
})();`
