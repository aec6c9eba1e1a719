package sync_test

import (
	"fmt"
	"slices"
	stdsync "sync"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/sync"
)

// outcomes explores body and returns the sorted outcomes of its
// executions, and the result. The executions of several workers record
// their outcomes at once.
func outcomes(t *testing.T, body func() string, opts ...weft.Option) ([]string, weft.Result) {
	t.Helper()
	var mu stdsync.Mutex
	seen := map[string]bool{}
	res := explore(t, func() {
		o := body()
		mu.Lock()
		seen[o] = true
		mu.Unlock()
	}, opts...)
	return slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}), res
}

func TestPool(t *testing.T) {
	newBuf := func() any { return "new" }
	tests := []struct {
		name string
		body func() string
		want []string
	}{
		{"empty pool misses", func() string {
			p := sync.Pool{New: newBuf}
			return fmt.Sprint(p.Get())
		}, []string{"new"}},
		{"no New", func() string {
			var p sync.Pool
			p.Put(nil) // ignored
			return fmt.Sprint(p.Get())
		}, []string{"<nil>"}},
		{"a get after a put may miss", func() string {
			p := sync.Pool{New: newBuf}
			p.Put("a")
			return fmt.Sprint(p.Get())
		}, []string{"a", "new"}},
		{"any item", func() string {
			p := sync.Pool{New: newBuf}
			p.Put("a")
			p.Put("b")
			return fmt.Sprint(p.Get(), p.Get(), p.Get())
		}, []string{"abnew", "anewb", "anewnew", "banew", "bnewa", "bnewnew",
			"newab", "newanew", "newba", "newbnew", "newnewa", "newnewb", "newnewnew"}},
		{"an item is taken once", func() string {
			p := sync.Pool{New: newBuf}
			p.Put("a")
			var got string
			g := weft.Go(func() { got = fmt.Sprint(p.Get()) })
			mine := fmt.Sprint(p.Get())
			g.Join()
			return mine + "," + got
		}, []string{"a,new", "new,a", "new,new"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor"} {
				got, res := outcomes(t, tc.body, weft.WithEngine(eng))
				if len(res.Bugs) > 0 {
					t.Fatalf("%s: %v", eng, res.Bugs)
				}
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Errorf("%s: outcomes %q, want %q", eng, got, want)
				}
			}
		})
	}
}

// TestPoolUseAfterPut checks that weft finds the classic misuse: a buffer
// put back while its owner still reads it, which another goroutine gets.
func TestPoolUseAfterPut(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		res := explore(t, func() {
			p := sync.Pool{New: func() any { return new(weft.Var[string]) }}
			format := func(s string) string {
				buf := p.Get().(*weft.Var[string])
				buf.Store(s)
				if fixed {
					defer p.Put(buf)
					return buf.Load()
				}
				p.Put(buf)
				return buf.Load() // the bug: buf may be another goroutine's by now
			}
			var other string
			g := weft.Go(func() { other = format("b") })
			mine := format("a")
			g.Join()
			weft.Assert(mine == "a" && other == "b", "got %q and %q", mine, other)
		}, weft.WithAllBugs())
		if found := len(res.Bugs) > 0; found == fixed {
			t.Errorf("fixed %v: bugs %v", fixed, res.Bugs)
		}
	}
}
