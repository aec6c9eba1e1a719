package weft_test

import (
	"fmt"
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
	for _, engine := range []string{"condpor", "dfs", "mpor", "sdpor", "cdpor"} {
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
	for _, engine := range []string{"condpor", "dfs", "mpor"} {
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
