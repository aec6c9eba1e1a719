package random

import (
	"testing"

	"weft.dev/weft/internal/engine"
)

// TestSplit checks that splitting an engine as far as it goes, after any
// number of executions, cuts the executions it has left into parts that
// are disjoint, together those executions, each of at least the grain,
// and at most maxParts in all; and that each part hands over the later
// executions, so that the parts in the order of their splits run the
// executions in the order of one engine.
func TestSplit(t *testing.T) {
	for _, c := range []struct{ n, ran int }{
		{1, 0}, {2, 0}, {3, 1}, {1000, 0}, {1000, 999}, {1000, 17}, {maxParts, 5}, {maxParts + 1, 0}, {5_000_000, 3},
	} {
		root := New(engine.Config{Executions: c.n}).(*Engine)
		var x engine.Exec
		for range c.ran {
			if !root.Begin(&x) {
				t.Fatalf("n %d: Begin false after fewer executions", c.n)
			}
		}
		// Split each part as far as it goes, breadth first, as a
		// sharded exploration's start does.
		parts := []*Engine{root}
		for i := 0; i < len(parts); i++ {
			for n := parts[i].Split(engine.Config{}); n != nil; n = parts[i].Split(engine.Config{}) {
				parts = append(parts, n.(*Engine))
			}
		}
		if len(parts) > maxParts {
			t.Errorf("n %d: %d parts, more than %d", c.n, len(parts), maxParts)
		}
		covered := make([]bool, c.n)
		for _, p := range parts {
			if p.next > p.end || p != root && p.end-p.next < root.grain {
				t.Errorf("n %d: part [%d, %d) below the grain %d", c.n, p.next, p.end, root.grain)
			}
			for k := p.next; k < p.end; k++ {
				if covered[k] {
					t.Fatalf("n %d: execution %d in two parts", c.n, k)
				}
				covered[k] = true
			}
		}
		for k, ok := range covered {
			if ok != (k >= c.ran) {
				t.Fatalf("n %d, %d ran: execution %d covered %v", c.n, c.ran, k, ok)
			}
		}
		// A part split from another comes after it: in the order of one
		// engine, the part it was split from runs its executions first.
		if len(parts) > 1 && parts[1].next < root.end {
			t.Errorf("n %d: the first part split off starts at %d, before the root's end %d", c.n, parts[1].next, root.end)
		}
	}
}

// TestStreams checks that neighbouring executions and seeds draw
// different streams.
func TestStreams(t *testing.T) {
	seen := map[[2]uint64]bool{}
	for seed := range uint64(4) {
		for k := range 1000 {
			a, b := stream(seed, k)
			if seen[[2]uint64{a, b}] {
				t.Fatalf("seed %d, execution %d: a stream seen before", seed, k)
			}
			seen[[2]uint64{a, b}] = true
		}
	}
}
