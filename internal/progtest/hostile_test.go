package progtest_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/internal/progtest"
)

// TestHostilePrograms: pairs of generated programs of every kind of
// operation (memory, locks, symbolic values, channels, spin loops,
// goroutines nothing joins) that run in turn, one in each execution, end
// with every engine, with one worker or two, in a result, never in an
// internal error of weft's or a hang: a replay that finds another program
// than the one it recorded reports nondeterminism (package chanprog's
// TestHostilePrograms shifts channels too).
func TestHostilePrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var kinds []progtest.OpKind
	for k := progtest.Load; k <= progtest.Go; k++ {
		if k != progtest.Lock && k != progtest.Unlock { // balanced sections only (LockedRatio)
			kinds = append(kinds, k)
		}
	}
	cfg := progtest.Config{Goroutines: [2]int{1, 3}, Ops: [2]int{1, 5}, Locs: 2, LockedRatio: 0.2, Kinds: kinds}
	nondet := 0
	prev := progtest.Generate(rng, cfg)
	for i := range 200 {
		p := progtest.Generate(rng, cfg)
		a, b := prev.Body(), p.Body()
		for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor", "cdpor", "random"} {
			runs := 0
			body := func() {
				runs++
				if runs%2 == 0 {
					a()
				} else {
					b()
				}
			}
			done := make(chan struct{})
			var res weft.Result
			var err error
			go func() {
				defer close(done)
				res, err = weft.Explore(body, weft.WithEngine(eng), weft.WithWorkers(1+i%2), weft.WithMaxExecutions(100), weft.WithMaxSteps(500))
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("programs %d, %s: still running after a minute:\n%v\n%v", i, eng, prev, p)
			}
			if err != nil {
				t.Fatalf("programs %d, %s: %v\n%v\n%v", i, eng, err, prev, p)
			}
			for _, b := range res.Bugs {
				if b.Kind == weft.Nondeterminism {
					nondet++
				}
			}
		}
		prev = p
	}
	t.Logf("%d explorations ended in nondeterminism", nondet)
	if nondet == 0 {
		t.Error("no exploration found the programs nondeterministic")
	}
}
