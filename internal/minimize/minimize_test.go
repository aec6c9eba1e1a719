package minimize_test

import (
	"slices"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/minimize"
	"weft.dev/weft/sync"
)

func sched(gs ...int32) []engine.Choice {
	s := make([]engine.Choice, len(gs))
	for i, g := range gs {
		s[i] = engine.Choice{G: g}
	}
	return s
}

func TestSwitches(t *testing.T) {
	tests := []struct {
		sched []engine.Choice
		want  int
	}{
		{nil, 0},
		{sched(0), 0},
		{sched(0, 0, 0), 0},
		{sched(0, 1, 0), 2},
		{sched(0, 1, 1, 2, 0), 3},
	}
	for _, tt := range tests {
		if got := minimize.Switches(tt.sched); got != tt.want {
			t.Errorf("Switches(%v) = %d, want %d", tt.sched, got, tt.want)
		}
	}
}

// lostUpdate models the lost update on schedules: g0 and g1 each load then
// store (steps 0 and 1 of each); the bug happens when both load before
// either stores. A schedule that does not give each goroutine its two steps
// diverges.
func lostUpdate(s []engine.Choice) (*engine.Bug, []engine.Choice) {
	steps := map[int32]int{}
	loads, stores, lost := 0, 0, false
	for _, c := range s {
		switch steps[c.G] {
		case 0:
			loads++
		case 1:
			lost = lost || stores == 0 && loads == 2
			stores++
		}
		steps[c.G]++
	}
	if len(steps) != 2 || steps[0] != 2 || steps[1] != 2 {
		return &engine.Bug{Kind: engine.Nondeterminism}, s
	}
	if !lost {
		return nil, s
	}
	return &engine.Bug{Kind: engine.AssertionFailed, Message: "lost"}, s
}

func TestSchedule(t *testing.T) {
	bug := &engine.Bug{Kind: engine.AssertionFailed, Message: "lost"}
	tests := []struct {
		name   string
		start  []engine.Choice
		budget minimize.Budget
		want   int // switches
	}{
		{"alternating", sched(0, 1, 0, 1), minimize.DefaultBudget, 2},
		{"already minimal", sched(0, 1, 1, 0), minimize.DefaultBudget, 2},
		{"no budget", sched(0, 1, 0, 1), minimize.Budget{Runs: 0, Time: time.Second}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, _ := lostUpdate(tt.start); b == nil || b.Kind != bug.Kind {
				t.Fatalf("the starting schedule has no bug")
			}
			res := minimize.Schedule(tt.start, bug, lostUpdate, tt.budget)
			if res.Switches != tt.want || minimize.Switches(res.Schedule) != res.Switches || res.Runs > tt.budget.Runs {
				t.Errorf("got %v with %d switches after %d runs, want %d switches", res.Schedule, res.Switches, res.Runs, tt.want)
			}
			if b, _ := lostUpdate(res.Schedule); b == nil || b.Kind != bug.Kind {
				t.Errorf("the result %v does not reproduce the bug", res.Schedule)
			}
			if res.Minimized() != (res.Switches < res.Original) || res.Original != minimize.Switches(tt.start) {
				t.Errorf("Original %d, Minimized %v", res.Original, res.Minimized())
			}
		})
	}
}

// TestOtherBugIsNotKept checks that a candidate with another bug, or with
// the same kind and another message, is not taken.
func TestOtherBugIsNotKept(t *testing.T) {
	start := sched(0, 1, 0, 1)
	for _, other := range []*engine.Bug{{Kind: engine.Panic, Message: "lost"}, {Kind: engine.AssertionFailed, Message: "other"}} {
		run := func(s []engine.Choice) (*engine.Bug, []engine.Choice) {
			if slices.Equal(s, start) {
				return &engine.Bug{Kind: engine.AssertionFailed, Message: "lost"}, s
			}
			return other, s
		}
		res := minimize.Schedule(start, &engine.Bug{Kind: engine.AssertionFailed, Message: "lost"}, run, minimize.DefaultBudget)
		if !slices.Equal(res.Schedule, start) || res.Minimized() {
			t.Errorf("with %v everywhere else: got %v", other, res.Schedule)
		}
	}
}

// switches counts the goroutine switches of a reported trace.
func switches(tr weft.Trace) int {
	n := 0
	for i := 1; i < len(tr.Steps); i++ {
		if tr.Steps[i].Goroutine != tr.Steps[i-1].Goroutine {
			n++
		}
	}
	return n
}

// TestExamples minimizes the bugs of real programs found by every engine,
// and checks that the minimized replay token still gives the bug.
func TestExamples(t *testing.T) {
	programs := []struct {
		name string
		body func()
		max  int // switches of the minimized execution
	}{
		{"lost update", func() {
			var n atomic.Int64
			inc := func() { n.Store(n.Load() + 1) }
			g := weft.Go(inc)
			inc()
			g.Join()
			weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
		}, 2},
		{"lost update with a lock each", func() {
			var mu sync.Mutex
			var n atomic.Int64
			inc := func() {
				mu.Lock()
				v := n.Load()
				mu.Unlock()
				mu.Lock()
				n.Store(v + 1)
				mu.Unlock()
			}
			g1 := weft.Go(inc)
			g2 := weft.Go(inc)
			g1.Join()
			g2.Join()
			weft.Assert(n.Load() == 2, "lost update: n = %d", n.Load())
		}, 4},
	}
	for _, p := range programs {
		for _, eng := range []string{"condpor", "dfs", "random"} {
			t.Run(p.name+"/"+eng, func(t *testing.T) {
				res, err := weft.Explore(p.body, weft.WithEngine(eng), weft.WithSeed(3))
				if err != nil || len(res.Bugs) != 1 {
					t.Fatalf("got %v, %v; want one bug", res.Bugs, err)
				}
				b := res.Bugs[0]
				if n := switches(b.Trace); n > p.max {
					t.Errorf("%d switches after minimization, want at most %d:\n%v", n, p.max, b)
				}
				again, err := weft.Explore(p.body, weft.WithReplay(b.Replay))
				if err != nil || len(again.Bugs) != 1 || again.Bugs[0].Message != b.Message || !slices.Equal(again.Bugs[0].Trace.Steps, b.Trace.Steps) {
					t.Errorf("the replay gave %v, %v; want the same bug and trace", again.Bugs, err)
				}
			})
		}
	}
}
