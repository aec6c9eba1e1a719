package weft_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// lostUpdates is a program whose first bug comes after many executions:
// n goroutines increment a counter by a load and a store.
func lostUpdates(n int) func() {
	return func() {
		var x atomic.Int64
		inc := func() { x.Store(x.Load() + 1) }
		var gs []*weft.Goroutine
		for range n - 1 {
			gs = append(gs, weft.Go(inc))
		}
		inc()
		for _, g := range gs {
			g.Join()
		}
		weft.Assert(x.Load() == int64(n), "lost update: x = %d", x.Load())
	}
}

// outcome is what must not depend on the workers or the shards.
func outcome(r weft.Result) string {
	s := fmt.Sprintf("%s: %d executions (%d complete, %d blocked), exhaustive %v", r.Engine, r.Executions, r.Complete, r.Blocked, r.Exhaustive)
	for _, b := range r.Bugs {
		s += fmt.Sprintf("; %v: %s (%s)", b.Kind, b.Message, b.Replay)
	}
	return s
}

// TestWorkers checks that WithWorkers and WEFT_WORKERS give the result of
// one worker: the counts, and the first bug with its replay token.
func TestWorkers(t *testing.T) {
	for _, engine := range []string{"condpor", "dfs", "mpor", "sdpor", "cdpor", "random"} {
		for _, all := range []bool{false, true} {
			opts := []weft.Option{weft.WithEngine(engine)}
			if all {
				opts = append(opts, weft.WithAllBugs())
			}
			want := outcome(explore(t, lostUpdates(3), append(opts, weft.WithWorkers(1))...))
			for _, w := range []int{2, 4} {
				if got := outcome(explore(t, lostUpdates(3), append(opts, weft.WithWorkers(w))...)); got != want {
					t.Errorf("%d workers: %s\none worker: %s", w, got, want)
				}
			}
			t.Setenv("WEFT_WORKERS", "3")
			if got := outcome(explore(t, lostUpdates(3), append(opts, weft.WithWorkers(1))...)); got != want {
				t.Errorf("WEFT_WORKERS=3: %s\none worker: %s", got, want)
			}
			t.Setenv("WEFT_WORKERS", "")
		}
	}
}

// TestWorkersSplit checks, through the public API and its real timing,
// explorations long enough for a second worker to take part (some 14,400
// executions, a few hundred ms): two workers get one worker's counts and
// bugs with their replay tokens, for the engines whose parts are
// independent (condpor) and for those whose parts wait for the races of
// the parts before them (sdpor, cdpor).
func TestWorkersSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("explorations of a few hundred ms")
	}
	for _, engine := range []string{"condpor", "sdpor", "cdpor"} {
		opts := []weft.Option{weft.WithEngine(engine), weft.WithAllBugs()}
		want := outcome(explore(t, lostUpdates(5), append(opts, weft.WithWorkers(1))...))
		if got := outcome(explore(t, lostUpdates(5), append(opts, weft.WithWorkers(2))...)); got != want {
			t.Errorf("2 workers: %s\none worker: %s", got, want)
		}
	}
}

// TestShard checks that the shards of an exploration add up to it, and
// that WEFT_SHARD selects one.
func TestShard(t *testing.T) {
	for _, engine := range []string{"condpor", "dfs", "mpor", "random"} {
		whole := explore(t, lostUpdates(3), weft.WithEngine(engine), weft.WithAllBugs())
		const n = 4
		sum := 0
		for i := range n {
			r := explore(t, lostUpdates(3), weft.WithEngine(engine), weft.WithAllBugs(), weft.WithShard(i, n))
			if r.Shard != i || r.Shards != n {
				t.Errorf("%s: WithShard(%d, %d) gave shard %d/%d", engine, i, n, r.Shard, r.Shards)
			}
			sum += r.Executions
		}
		if sum != whole.Executions {
			t.Errorf("%s: %d shards explored %d executions, the whole exploration %d", engine, n, sum, whole.Executions)
		}
		t.Setenv("WEFT_SHARD", "1/4")
		if r := explore(t, lostUpdates(3), weft.WithEngine(engine), weft.WithAllBugs()); r.Shard != 1 || r.Shards != 4 || r.Executions == whole.Executions {
			t.Errorf("%s: WEFT_SHARD=1/4: shard %d/%d, %d executions of %d", engine, r.Shard, r.Shards, r.Executions, whole.Executions)
		}
		t.Setenv("WEFT_SHARD", "")
	}
}

// TestRandomWorkers checks that the random engine samples the same
// executions, with their limit or its default number, however many
// workers share them and however they are sharded: the outcomes of each
// execution, the order in which three goroutines took their six turns,
// are the same multiset, and the first bug is the same with its replay
// token.
func TestRandomWorkers(t *testing.T) {
	var mu sync.Mutex
	var seen []int
	body := func() {
		var turn atomic.Int32
		var pos [3][2]int32
		var gs []*weft.Goroutine
		for g := range 3 {
			gs = append(gs, weft.Go(func() {
				for i := range 2 {
					pos[g][i] = turn.Add(1)
				}
			}))
		}
		sig := 0
		for g, h := range gs {
			h.Join()
			sig = sig*100 + int(pos[g][0])*10 + int(pos[g][1])
		}
		mu.Lock()
		seen = append(seen, sig)
		mu.Unlock()
	}
	// sample returns the outcomes of the executions the result counts:
	// every shard runs the start of the exploration, which shard 0
	// counts, before its parts; one worker runs them in that order.
	sample := func(opts ...weft.Option) []int {
		seen = nil
		r := explore(t, body, append(opts, weft.WithEngine("random"), weft.WithSeed(3))...)
		return slices.Sorted(slices.Values(seen[len(seen)-r.Executions:]))
	}
	for _, limit := range []int{0, 5000} {
		opts := []weft.Option{}
		if limit > 0 {
			opts = append(opts, weft.WithMaxExecutions(limit))
		}
		want := sample(append(opts, weft.WithWorkers(1))...)
		if n := max(limit, 1000); len(want) != n {
			t.Fatalf("limit %d: %d executions, want %d", limit, len(want), n)
		}
		if distinct := len(slices.Compact(slices.Clone(want))); distinct < 20 {
			t.Fatalf("limit %d: %d distinct outcomes: the check cannot tell executions apart", limit, distinct)
		}
		for _, w := range []int{2, 4} {
			if got := sample(append(opts, weft.WithWorkers(w))...); !slices.Equal(got, want) {
				t.Errorf("limit %d, %d workers: not the executions of one worker", limit, w)
			}
		}
		var shards []int
		for i := range 3 {
			shards = append(shards, sample(append(opts, weft.WithShard(i, 3), weft.WithWorkers(1))...)...)
		}
		if slices.Sort(shards); !slices.Equal(shards, want) {
			t.Errorf("limit %d: 3 shards together: not the executions of one worker", limit)
		}
	}
	want := outcome(explore(t, lostUpdates(4), weft.WithEngine("random"), weft.WithMaxExecutions(5000), weft.WithWorkers(1)))
	if !strings.Contains(want, "lost update") {
		t.Fatalf("one worker found no lost update: %s", want)
	}
	for _, w := range []int{2, 4} {
		if got := outcome(explore(t, lostUpdates(4), weft.WithEngine("random"), weft.WithMaxExecutions(5000), weft.WithWorkers(w))); got != want {
			t.Errorf("%d workers: %s\none worker: %s", w, got, want)
		}
	}
}
