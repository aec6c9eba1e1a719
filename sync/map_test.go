package sync_test

import (
	"fmt"
	"slices"
	stdsync "sync"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// mapOps are the methods of a map, the standard library's or weft's.
type mapOps interface {
	Load(key any) (any, bool)
	Store(key, value any)
	LoadOrStore(key, value any) (any, bool)
	LoadAndDelete(key any) (any, bool)
	Delete(key any)
	Swap(key, value any) (any, bool)
	CompareAndSwap(key, old, new any) bool
	CompareAndDelete(key, old any) bool
	Range(f func(key, value any) bool)
	Clear()
}

// TestMapAsStd applies the same operations to a sync.Map and to weft's and
// compares the results, in one execution.
func TestMapAsStd(t *testing.T) {
	contents := func(m mapOps) string {
		var kv []string
		m.Range(func(k, v any) bool { kv = append(kv, fmt.Sprint(k, "=", v)); return true })
		slices.Sort(kv)
		return fmt.Sprint(kv)
	}
	steps := []struct {
		name string
		do   func(m mapOps) any
	}{
		{"load absent", func(m mapOps) any { return fmt.Sprint(m.Load("a")) }},
		{"delete absent", func(m mapOps) any { m.Delete("a"); return contents(m) }},
		{"load and delete absent", func(m mapOps) any { return fmt.Sprint(m.LoadAndDelete("a")) }},
		{"store", func(m mapOps) any { m.Store("a", 1); return contents(m) }},
		{"load", func(m mapOps) any { return fmt.Sprint(m.Load("a")) }},
		{"load or store present", func(m mapOps) any { return fmt.Sprint(m.LoadOrStore("a", 2)) }},
		{"load or store absent", func(m mapOps) any { return fmt.Sprint(m.LoadOrStore("b", 2)) }},
		{"swap present", func(m mapOps) any { return fmt.Sprint(m.Swap("b", 3)) }},
		{"swap absent", func(m mapOps) any { return fmt.Sprint(m.Swap("c", 4)) }},
		{"cas wrong", func(m mapOps) any { return m.CompareAndSwap("c", 5, 6) }},
		{"cas", func(m mapOps) any { return m.CompareAndSwap("c", 4, 6) }},
		{"cas absent", func(m mapOps) any { return m.CompareAndSwap("d", nil, 1) }},
		{"compare and delete wrong", func(m mapOps) any { return m.CompareAndDelete("c", 4) }},
		{"compare and delete", func(m mapOps) any { return m.CompareAndDelete("c", 6) }},
		{"deleted", func(m mapOps) any { v, ok := m.Load("c"); return fmt.Sprint(v, ok, contents(m)) }},
		{"load and delete", func(m mapOps) any { return fmt.Sprint(m.LoadAndDelete("a")) }},
		{"load or store deleted", func(m mapOps) any { return fmt.Sprint(m.LoadOrStore("a", 7)) }},
		{"store nil", func(m mapOps) any { m.Store("n", nil); return fmt.Sprint(m.Load("n")) }},
		{"range stops", func(m mapOps) any {
			n := 0
			m.Range(func(k, v any) bool { n++; return false })
			return n
		}},
		{"contents", func(m mapOps) any { return contents(m) }},
		{"clear", func(m mapOps) any { m.Clear(); return contents(m) }},
		{"store after clear", func(m mapOps) any { m.Store("b", 8); return contents(m) }},
		{"uncomparable key", func(m mapOps) any { return panics(func() { m.Store([]int{1}, 1) }) != nil }},
		{"uncomparable old of another type", func(m mapOps) any {
			m.Store("i", 1)
			return fmt.Sprint(m.CompareAndSwap("i", []int{1}, 2), m.CompareAndSwap("absent", []int{1}, 2))
		}},
		{"uncomparable old", func(m mapOps) any {
			m.Store("s", []int{1})
			return panics(func() { m.CompareAndSwap("s", []int{1}, 2) }) != nil
		}},
	}
	var std stdsync.Map
	res, err := weft.Explore(func() {
		var m sync.Map
		for _, s := range steps {
			if got, want := s.do(&m), s.do(&std); got != want {
				t.Errorf("%s: got %v, want %v", s.name, got, want)
			}
		}
	})
	if err != nil || len(res.Bugs) > 0 {
		t.Fatal(err, res.Bugs)
	}
}

func panics(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// TestMapConcurrent checks what a Map synchronizes and which outcomes it
// allows, by the outcomes every execution has.
func TestMapConcurrent(t *testing.T) {
	tests := []struct {
		name string
		body func() string
		want []string // the outcomes of all executions
		// executions is the number the default engine explores, when it
		// says something of the model (0: not checked).
		executions int
	}{
		{"check then act", func() string {
			var m sync.Map
			var owners atomic.Int32
			claim := func() {
				if _, ok := m.Load("k"); !ok {
					m.Store("k", true)
					owners.Add(1)
				}
			}
			g := weft.Go(claim)
			claim()
			g.Join()
			return fmt.Sprint(owners.Load(), " owners")
		}, []string{"1 owners", "2 owners"}, 0},
		{"load or store", func() string {
			var m sync.Map
			var owners atomic.Int32
			claim := func() {
				if _, loaded := m.LoadOrStore("k", true); !loaded {
					owners.Add(1)
				}
			}
			g := weft.Go(claim)
			claim()
			g.Join()
			return fmt.Sprint(owners.Load(), " owners")
		}, []string{"1 owners"}, 2},
		{"different keys are independent", func() string {
			var m sync.Map
			m.Store("a", 0)
			m.Store("b", 0)
			g := weft.Go(func() { m.Store("a", 1); m.Load("a") })
			m.Store("b", 2)
			m.Load("b")
			g.Join()
			return ""
		}, []string{""}, 1},
		{"a store synchronizes with the load that sees it", func() string {
			var m sync.Map
			var data weft.Var[int] // a race, were it not so
			g := weft.Go(func() { data.Store(42); m.Store("ready", true) })
			if _, ok := m.Load("ready"); ok {
				return fmt.Sprint(data.Load())
			}
			g.Join()
			return "not ready"
		}, []string{"42", "not ready"}, 0},
		{"range sees what was stored before it", func() string {
			var m sync.Map
			g := weft.Go(func() { m.Store("a", 1); m.Store("b", 2) })
			g.Join()
			var kv []string
			m.Range(func(k, v any) bool { kv = append(kv, fmt.Sprint(k, v)); return true })
			return fmt.Sprint(kv)
		}, []string{"[a1 b2]"}, 1},
		{"range during stores", func() string {
			var m sync.Map
			g := weft.Go(func() { m.Store("a", 1); m.Store("b", 2); m.Delete("a") })
			var kv []string
			m.Range(func(k, v any) bool { kv = append(kv, fmt.Sprint(k, v)); return true })
			g.Join()
			return fmt.Sprint(kv)
		}, []string{"[]", "[a1 b2]", "[a1]", "[b2]"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor"} {
				got, res := outcomes(t, tc.body, weft.WithEngine(eng))
				if len(res.Bugs) > 0 {
					t.Fatalf("%s: %v", eng, res.Bugs)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: outcomes %q, want %q", eng, got, tc.want)
				}
				if eng == "condpor" && tc.executions > 0 && res.Executions != tc.executions {
					t.Errorf("%d executions, want %d", res.Executions, tc.executions)
				}
			}
		})
	}
}
