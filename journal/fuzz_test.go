package journal

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the journal decoder. It must never panic
// nor trust a length field beyond MaxRecordSize, and whatever it accepts must
// survive a re-encode unchanged.
func FuzzDecode(f *testing.F) {
	good := appendFrame([]byte(magic), encodeSettings(testSettings))
	for i := range 3 {
		good = appendFrame(good, appendResult(nil, rec(i)))
	}
	f.Add(good)
	liar, honest := rec(3), rec(3)
	liar.Worker, honest.Worker = 9, 10
	redone := appendFrame(appendFrame(appendFrame(bytes.Clone(good), appendResult(nil, liar)), appendDistrust(nil, 9)), appendResult(nil, honest))
	f.Add(redone)
	run := []Record{{Index: 4, Total: 2, Unique: 1, Nodes: 9, Worker: 11}, {Index: 5, Total: 8, Unique: 1, Nodes: 70, Worker: 11}}
	f.Add(appendFrame(bytes.Clone(good), appendRun(nil, run)))
	b := newBatcher(&workerNames{})
	batched := bytes.Clone(good)
	for _, r := range []Record{{Index: 6, Total: 4, Unique: 1, Nodes: 3}, {Index: 9, Total: 2, Unique: 1, Nodes: 8, Worker: 1 << 62}, {Index: 8, Total: 6, Unique: 2, Nodes: 1, Worker: 1 << 62}} {
		batched = b.add(batched, r)
	}
	f.Add(b.close(batched))
	f.Add(good[:len(good)-3])
	f.Add(append(bytes.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0))
	f.Add(appendFrame([]byte(magic), encodeSettings(Settings{})))
	f.Add([]byte(magic + "\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		p, err := parse(data)
		if err != nil {
			return
		}
		// Re-encode what was accepted, as single records and in batches;
		// both must parse to the same thing.
		img := appendFrame([]byte(magic), encodeSettings(p.settings))
		seen := map[int]bool{}
		recs, _ := p.records(memSource{data})
		batched, b := bytes.Clone(img), newBatcher(&workerNames{})
		for _, r := range recs {
			if b.takes(r) {
				batched = b.add(batched, r)
			} else {
				batched = appendFrame(b.close(batched), appendResult(nil, r))
			}
		}
		if q, err := parse(b.close(batched)); err != nil || q.torn != nil || !reflect.DeepEqual(recs, first(q.records(memSource{batched}))) {
			t.Fatalf("the results re-encoded in batches do not read back: %v, torn %+v", err, q.torn)
		}
		for _, r := range recs {
			if seen[r.Index] {
				t.Fatalf("accepted a duplicate index %d", r.Index)
			}
			seen[r.Index] = true
			if len(r.Digest) > MaxDigestSize {
				t.Fatalf("accepted a %d-byte digest", len(r.Digest))
			}
			img = appendFrame(img, appendResult(nil, r))
		}
		q, err := parse(img)
		if err != nil || q.torn != nil {
			t.Fatalf("re-encoded journal does not parse cleanly: %v, torn %+v", err, q.torn)
		}
		if pr, _ := p.records(memSource{data}); len(pr) > 0 && !reflect.DeepEqual(pr, first(q.records(memSource{img}))) || !settingsEqual(p.settings, q.settings) {
			t.Fatalf("re-encode changed the journal:\n%+v\n%+v", p, q)
		}
		if p.torn != nil && (p.torn.off < len(magic) || p.torn.off >= len(data)) {
			t.Fatalf("torn offset %d outside (%d, %d)", p.torn.off, len(magic), len(data))
		}
	})
}

func settingsEqual(a, b Settings) bool { return len(a.Diff(b)) == 0 }

// first is the first of two results.
func first[T any](v T, _ error) T { return v }
