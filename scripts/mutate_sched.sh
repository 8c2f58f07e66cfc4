#!/usr/bin/env bash
# mutate_sched.sh: do the scheduler's tests catch a broken scheduler?
# Each mutant below is one plausible bug put into a copy of the tree
# (never into this checkout); `go test ./coordinator/internal/sched` must
# fail on every one. It prints a line per mutant and "caught K of M", and
# exits 1 if any mutant survives (or no longer applies: the code it
# breaks has changed, and this list must follow it).
#
#   scripts/mutate_sched.sh [PATTERN]   (only the mutants whose name matches)
set -euo pipefail
cd "$(dirname "$0")/.."
only=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$tmp" 2>/dev/null || { echo "copying the tree failed" >&2; exit 1; }
pkg=coordinator/internal/sched

# name | file | perl -0 substitution (exactly one match)
mutants=$(cat <<'LIST'
commit counted twice|commit.go|s/(\ts\.addLocked\(c, 1\)\n)(\tsess\.tasks\+\+)/$1$1$2/
commit not marked committed|commit.go|s/t\.set\(taskCommitted, true\)\n\tt\.setCommitter/t.set(taskCommitted, false)\n\tt.setCommitter/
conflict ignores the fundamental count|commit.go|s/!ok \|\| got\.Total == c\.Total && got\.Unique == c\.Unique/!ok || got.Total == c.Total/
quarantined worker's result accepted|commit.go|s/\tcase sess\.quarantined:\n\t\tendOwn\(\)/\tcase false:\n\t\tendOwn()/
result from a worker that never held the task accepted|commit.go|s/\tcase !own:\n\t\ts\.stats\.Rejected\+\+\n\t\tsess\.warns\.warn\("result for a task/\tcase false:\n\t\ts.stats.Rejected++\n\t\tsess.warns.warn("result for a task/
running sums not checked against the published count|commit.go|s/(if reason := s\.pastBoardLocked\(r\.Counts\); )reason != ""( \{\n\t\treturn s\.refuseLocked\(sess, l, reason, reason, "task", idx\))/$1false$2/
invalid result earns no strike|commit.go|s/\t\twhy = causeRejected\n\t\ts\.strikeLocked\(sess, reason\)\n/\t\twhy = causeRejected\n/
retry cap off by one|scheduler.go|s/if len\(failed\) >= s\.opt\.MaxAttempts \{/if len(failed) > s.opt.MaxAttempts {/
taken-back task never queued again|scheduler.go|s/(\tif !t\.is\(taskCommitted\) && !t\.is\(taskQueued\) && !t\.is\(taskSplit\) && !t\.is\(taskGone\) \{\n\t\ts\.requeueLocked\(l\.task\)\n\t\}\n\})/\tif false {\n\t\ts.requeueLocked(l.task)\n\t}\n}/
taken-back verification dropped|scheduler.go|s/(\t\tif t\.verify == verifyWaiting && t\.is\(taskCommitted\) \{\n)\t\t\ts\.verifyQ = append\(s\.verifyQ, l\.task\)\n/$1/
verification lease not in the lease table|scheduler.go|s/\tfor t := idx; t < idx\+run; t\+\+ \{\n\t\ts\.holder\[t\] = l\n\t\}/\tfor t := idx; t < idx+run \&\& !verify; t++ {\n\t\ts.holder[t] = l\n\t}/
task committed elsewhere leaves its single lease running|commit.go|s/other != nil && other\.run == 1 \{/other != nil \&\& other.run == 0 {/
ended lease still holds its task|scheduler.go|s/\t\tif s\.holder\[t\] == l \{\n\t\t\tdelete\(s\.holder, t\)/\t\tif s.holder[t] == l \&\& false {\n\t\t\tdelete(s.holder, t)/
sampled verification not counted as pending|verify.go|s/\ts\.verifyQ = append\(s\.verifyQ, idx\)\n\ts\.pendingVerify\+\+\n/\ts.verifyQ = append(s.verifyQ, idx)\n/
verification ignores the fundamental count|verify.go|s/if got\.Total == c\.Total && got\.Unique == c\.Unique \{\n\t\ts\.stats\.Verified\+\+/if got.Total == c.Total {\n\t\ts.stats.Verified++/
a liar's counts stay in the sums|verify.go|s/\t\ts\.addLocked\(reported, -1\)\n//
lying verifier not quarantined|verify.go|s/if verifier != nil && !same\(got\) \{/if false \&\& verifier != nil \&\& !same(got) {/
quarantine leaves the liar's other commits|verify.go|s/\ts\.uncommitAllLocked\(sess\)\n//
run's tasks not queued again|runs.go|s/\t\t\ts\.requeueLocked\(idx\)\n\t\t\}\n\t\}\n\}\n\n\/\/ runResultLocked/\t\t\t_ = idx\n\t\t}\n\t}\n}\n\n\/\/ runResultLocked/
run's sums not checked against the published count|runs.go|s/(if reason := s\.pastBoardLocked\(r\.Counts\); )reason != ""( \{\n\t\treturn s\.refuseLocked\(sess, l, reason, reason, "task", l\.task, "run", l\.run\))/$1false$2/
collapse drops a child's counts|collapse.go|s/\t\tsum = addCounts\(sum, r\.c, 1\)\n//
reopened collapse keeps its counts in the sums|collapse.go|s/(\t\ts\.leaves -= c\.leaves - 1\n)\t\ts\.addLocked\(r\.c, -1\)\n/$1/
split child's prefix reversed|split.go|s/for i := n - 1; i >= 0; i-- \{\n\t\tp = append\(p, rev\[i\]\)/for i := 0; i < n; i++ {\n\t\tp = append(p, rev[i])/
LIST
)

caught=0 total=0 bad=0
while IFS='|' read -r name file expr; do
	[ -n "$name" ] || continue
	if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then continue; fi
	total=$((total + 1))
	f="$tmp/$pkg/$file"
	cp "$f" "$f.orig"
	perl -0pi -e "$expr" "$f"
	if cmp -s "$f" "$f.orig"; then
		echo "STALE   $name: the substitution no longer matches $file"
		bad=$((bad + 1))
	elif (cd "$tmp" && go test -count=1 -timeout 5m "./$pkg" >"$tmp/out" 2>&1); then
		echo "SURVIVED $name"
		bad=$((bad + 1))
	else
		first=$(grep -m1 -E '^\s+--- FAIL|^--- FAIL|^FAIL|cannot|panic' "$tmp/out" | sed 's/^[[:space:]]*//' || true)
		echo "caught  $name ($first)"
		caught=$((caught + 1))
	fi
	mv "$f.orig" "$f"
done <<<"$mutants"
echo "caught $caught of $total"
[ "$bad" -eq 0 ]
