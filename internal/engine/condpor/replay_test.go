package condpor_test

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/progtest"
	wrt "weft.dev/weft/internal/runtime"
	isym "weft.dev/weft/internal/sym"
)

// noReplay is condpor without engine.Replayer: the runtime asks Step for
// every operation.
type noReplay struct{ *condpor.Engine }

func (noReplay) Replay(*engine.Exec, *engine.Goroutine) int32 { return -1 }

// explore runs body under condpor, with or without its Replayer, and
// describes what it found: the counts, and each bug with its schedule.
func explore(body func(), replayer, allBugs bool) string {
	conc := &concolic.Config{Table: isym.NewTable(), Solver: refSolver}
	var eng engine.Engine = condpor.New(engine.Config{Concolic: conc})
	if !replayer {
		eng = noReplay{eng.(*condpor.Engine)}
	}
	rep := wrt.Run(body, wrt.Config{Engine: eng, Concolic: conc, AllBugs: allBugs, MaxSteps: 1000})
	s := fmt.Sprintf("%d executions, %d complete, %d blocked, %d dropped, exhaustive %v, internal %q\n",
		rep.Executions, rep.Complete, rep.Blocked, rep.Dropped, rep.Exhaustive, rep.Internal)
	for _, f := range rep.Bugs {
		// The schedule by its length and hash: some are thousands of steps.
		s += fmt.Sprintf("%v: %s, schedule of %d steps %x\n", f.Bug.Kind, f.Bug.Message, len(f.Schedule), sha256.Sum256([]byte(fmt.Sprint(f.Schedule))))
	}
	return s
}

// sameWithReplayer checks that condpor explores the body that body returns
// alike with and without its Replayer; each exploration has a body of its
// own.
func sameWithReplayer(t *testing.T, name string, body func() func()) {
	t.Helper()
	for _, all := range []bool{false, true} {
		if want, got := explore(body(), false, all), explore(body(), true, all); got != want {
			t.Fatalf("%s (all bugs %v): with Replay\n%swithout\n%s", name, all, got, want)
		}
	}
}

// TestReplayerSameRuns checks that the operations condpor replays without
// a Step (engine.Replayer) change nothing: the same executions, the same
// bugs with the same schedules, on random programs and on programs whose
// goroutines stop between replayed operations (a panic, recovered or not,
// runtime.Goexit, a failed assertion, an operation of another kind, a
// program that does something else when replayed).
func TestReplayerSameRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert,
		progtest.VarLoad, progtest.VarStore, progtest.Lock, progtest.Unlock, progtest.ChanSend, progtest.ChanRecv, progtest.Await, progtest.Go}
	for range 150 {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 5}, Locs: 1 + rng.IntN(2), LockedRatio: 0.1, Kinds: kinds})
		sameWithReplayer(t, "program\n"+p.String(), p.Body)
	}
	// Loads and stores, which Replay performs, with something else in
	// between: a goroutine that reads 2 stops in the middle of its run.
	stop := map[string]func(){
		"panic":   func() { panic("two") },
		"goexit":  runtime.Goexit,
		"assert":  func() { weft.Assert(false, "two") },
		"assume":  func() { weft.Assume(false) },
		"recover": func() { defer func() { recover() }(); panic("two") },
		"join":    func() { weft.Go(func() {}).Join() },
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range stop {
			if !yield(k) {
				return
			}
		}
	}) {
		sameWithReplayer(t, name, func() func() {
			return func() {
				var x, y atomic.Int32
				worker := func(a, b *atomic.Int32) func() {
					return func() {
						for range 3 {
							v := a.Load() + b.Load()
							if v == 2 {
								stop[name]()
							}
							b.Store(v + 1)
						}
					}
				}
				joinAll(weft.Go(worker(&x, &y)), weft.Go(worker(&y, &x)))
			}
		})
	}
	// Long runs of loads, replayed past the operation at which the
	// runtime looks at the clock (every 1,024th), and up to the step
	// limit (1,000), which g1 passes in the first execution and reaches
	// when it replays its loads of x, the last of which reads 0 instead.
	sameWithReplayer(t, "clock", func() func() {
		return func() {
			var x, y atomic.Int32
			weft.Go(func() {
				for range 200 {
					y.Load()
				}
				x.Store(1)
			})
			for range 900 {
				y.Load()
			}
			x.Load()
		}
	})
	sameWithReplayer(t, "step limit", func() func() {
		return func() {
			var x, y atomic.Int32
			weft.Go(func() {
				for range 995 {
					y.Load()
				}
				for range 10 {
					x.Load()
				}
			})
			x.Store(1)
		}
	})
	// A program that loads another location once replayed.
	sameWithReplayer(t, "nondeterministic", func() func() {
		runs := 0
		return func() {
			var x, y atomic.Int32
			runs++
			n := runs
			weft.Go(func() { x.Store(1) })
			x.Load()
			if n > 2 {
				y.Load()
			} else {
				x.Load()
			}
		}
	})
}
