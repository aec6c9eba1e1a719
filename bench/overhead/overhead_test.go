package overhead_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/bench/overhead"
	rewritten "weft.dev/weft/bench/overhead/rewritten/plain"
)

// A program, written with weft's API and in plain Go as weft test rewrites
// it, at the size the benchmarks explore.
type program struct {
	name            string
	weft, rewritten func()
}

var programs = []program{
	{"Counter", func() { overhead.Counter(3) }, func() { rewritten.Counter(3) }},
	{"Atomics", func() { overhead.Atomics(2, 4) }, func() { rewritten.Atomics(2, 4) }},
	{"Pipeline", func() { overhead.Pipeline(3) }, func() { rewritten.Pipeline(3) }},
	{"Pool", func() { overhead.Pool(2, 3) }, func() { rewritten.Pool(2, 3) }},
	{"Query", func() { overhead.Query(3) }, func() { rewritten.Query(3) }},
}

// TestSamePrograms is the oracle of the benchmarks: each program explores
// the same executions written with weft's API and rewritten from plain
// Go, and both find no bug.
func TestSamePrograms(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			w, err := weft.Explore(p.weft)
			if err != nil {
				t.Fatal(err)
			}
			r, err := weft.Explore(p.rewritten)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range []weft.Result{w, r} {
				if len(res.Bugs) > 0 || !res.Exhaustive {
					t.Fatalf("%d executions, exhaustive %v, bugs %v; want all, none", res.Executions, res.Exhaustive, res.Bugs)
				}
			}
			type counts struct{ executions, complete, blocked, redundant int }
			wc := counts{w.Executions, w.Complete, w.Blocked, w.Redundant}
			rc := counts{r.Executions, r.Complete, r.Blocked, r.Redundant}
			if wc != rc {
				t.Errorf("weft's API: %+v; rewritten: %+v", wc, rc)
			}
			t.Logf("%d executions", w.Executions)
		})
	}
}
