package parallel_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/bench"
	"weft.dev/weft/internal/chanprog"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/internal/engine/random"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/parallel"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// engines are the engines that split, by name; random runs
// sampledExecutions executions.
var engines = map[string]func(engine.Config) engine.Engine{
	"condpor": condpor.New, "dfs": dfs.New, "mpor": mpor.New, "sdpor": sdpor.New, "cdpor": cdpor.New,
	"random": func(c engine.Config) engine.Engine { c.Executions = sampledExecutions; return random.New(c) },
}

// sampledExecutions is the number of executions of random, which explores
// every program in them: a bug shows in some executions, and the
// executions of its bugs' first part are cut.
const sampledExecutions = 200

// engineNames returns the names of engines, sorted.
func engineNames() []string { return slices.Sorted(maps.Keys(engines)) }

// solvers returns n solvers, closed when t ends.
func solvers(t testing.TB, n int) []concolic.Solver {
	var out []concolic.Solver
	for range n {
		s, err := smt.NewWith("builtin", smt.First)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out = append(out, s)
	}
	return out
}

// explore explores body with the engine name, workers workers, as shard
// shard of shards, splitting eagerly or not (see RunParts), and returns
// the report, the number of parts and how many times parts waited.
func explore(t testing.TB, name string, body func(), workers, shard, shards int, allBugs, eager bool) (rep *runtime.Report, parts, waits int) {
	t.Helper()
	cfg := config(t, name, workers, allBugs)
	cfg.Shard, cfg.Shards = shard, shards
	rep, parts, waits = parallel.RunParts(body, cfg, eager)
	if rep.Internal != "" {
		t.Fatalf("internal error: %s", rep.Internal)
	}
	return rep, parts, waits
}

// config is the configuration of an exploration with the engine name and
// workers workers, with or without allBugs.
func config(t testing.TB, name string, workers int, allBugs bool) parallel.Config {
	ss := solvers(t, workers)
	conc := &concolic.Config{Table: sym.NewTable(), Solver: ss[0]}
	return parallel.Config{
		Runtime: runtime.Config{Engine: engines[name](engine.Config{Concolic: conc}), Concolic: conc, MaxSteps: 1000, AllBugs: allBugs},
		Solvers: ss,
	}
}

// sequential explores body with one engine, without the package.
func sequential(t testing.TB, name string, body func(), allBugs bool) *runtime.Report {
	t.Helper()
	return sequentialUpTo(t, name, body, allBugs, 0)
}

// sequentialUpTo is sequential with at most limit executions (0: no
// limit).
func sequentialUpTo(t testing.TB, name string, body func(), allBugs bool, limit int) *runtime.Report {
	t.Helper()
	cfg := config(t, name, 1, allBugs).Runtime
	cfg.MaxExecutions = limit
	return runtime.Run(body, cfg)
}

// summary is what must not depend on the workers: the counts and the
// bugs with their schedules.
func summary(r *runtime.Report) string {
	s := fmt.Sprintf("%d executions (%d complete, %d blocked, %d dropped), exhaustive %v", r.Executions, r.Complete, r.Blocked, r.Dropped, r.Exhaustive)
	for _, f := range r.Bugs {
		s += fmt.Sprintf("\n%v: %s %v", f.Bug.Kind, f.Bug.Message, f.Schedule)
	}
	return s
}

// program is a generated program, and the engines that explore it in
// reasonable time.
type program struct {
	text    string
	body    func()
	engines []string
}

// maxExecutions bounds the executions of the explorations of a test
// program, a hundred times as many with the race detector.
const maxExecutions = 3000

// programs draws n programs of each kind, progtest's with every kind of
// operation, progtest's bigger with fewer bugs, and chanprog's, that some engine explores in at most
// maxExecutions executions, with or without WithAllBugs.
func programs(t testing.TB, n int) []program {
	rng := rand.New(rand.NewPCG(17, 1))
	var out []program
	keep := func(text string, body func()) {
		p := program{text: text, body: body}
		for _, name := range engineNames() {
			if name == "random" || sequentialUpTo(t, name, body, true, maxExecutions).Exhaustive {
				p.engines = append(p.engines, name)
			}
		}
		if len(p.engines) > 0 {
			out = append(out, p)
		}
	}
	keep("lost update: three goroutines increment x by a load and a store", lostUpdate)
	for len(out) < n {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 5}, Locs: 1 + rng.IntN(2), LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert,
				progtest.VarLoad, progtest.VarStore, progtest.SymNew, progtest.SymStore, progtest.SymLoad, progtest.SymBranch,
				progtest.SymAssume, progtest.Await, progtest.Go}})
		keep(p.String(), p.Body())
	}
	for len(out) < 2*n {
		// Fewer bugs and more executions: the first bug comes later.
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{3, 3}, Ops: [2]int{3, 4}, Locs: 2, LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert,
				progtest.SymNew, progtest.SymStore, progtest.SymLoad, progtest.SymBranch}})
		keep(p.String(), p.Body())
	}
	cfg := chanprog.DefaultConfig()
	for len(out) < 3*n {
		p := chanprog.Generate(rng, cfg)
		keep(p.String(), p.Body())
	}
	return out
}

// lostUpdate is a program whose bug comes after many executions, so that
// parts explored after the first bug's are there to be ignored.
func lostUpdate() {
	var x atomic.Int64
	inc := func() { x.Store(x.Load() + 1) }
	g1 := weft.Go(inc)
	g2 := weft.Go(inc)
	inc()
	g1.Join()
	g2.Join()
	weft.Assert(x.Load() == 3, "lost update: x = %d", x.Load())
}

// TestWorkers checks that, for many programs, each splitting engine finds
// with 1, 2 and 4 workers the counts, the first bug (or, with
// WithAllBugs, the bugs) and the length of the last execution that one
// engine alone finds.
func TestWorkers(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	parts, waits := map[string]int{}, 0
	for _, p := range programs(t, n) {
		for _, name := range p.engines {
			for _, allBugs := range []bool{false, true} {
				seq := sequential(t, name, p.body, allBugs)
				want := fmt.Sprintf("%s, %d steps in the last", summary(seq), seq.Steps)
				for _, w := range []int{1, 2, 4} {
					for _, eager := range []bool{false, true} {
						rep, k, wt := explore(t, name, p.body, w, 0, 1, allBugs, eager)
						parts[name] += k - 1
						waits += wt
						if got := fmt.Sprintf("%s, %d steps in the last", summary(rep), rep.Steps); got != want {
							t.Errorf("%s, all bugs %v, %d workers, eager %v:\n%s\nwant (one engine):\n%s\nprogram:\n%s", name, allBugs, w, eager, got, want, p.text)
						}
					}
				}
			}
		}
	}
	for _, name := range engineNames() {
		if parts[name] == 0 {
			t.Errorf("%s: no exploration was split: the workers never shared work", name)
		}
	}
	if waits == 0 {
		t.Error("sdpor: no part waited for the races of the parts before it")
	}
}

// TestWorkersCDPOR checks that cdpor, whose relation learns the sections
// of the program as it meets them and synthesizes their ICs in analyses
// that the check's parts share, gets with 2 and 4 workers, splitting
// eagerly, the counts and bugs of one engine alone on the programs of the
// CDPOR paper: sections declared commuting (PiSum, DBP), and a monitor's
// effects whose ICs it synthesizes (Fig1Synth, BoundedBuffer, Resolve,
// Quota).
func TestWorkersCDPOR(t *testing.T) {
	bodies := []struct {
		name string
		body func()
	}{
		{"PiSum(5)", bench.PiSum(5)}, {"DBP(4,2)", bench.Database(4, 2)}, {"Fig1Synth", bench.Fig1Synth()},
		{"BB(3,3,2)", bench.BoundedBuffer(3, 3, 2)}, {"Resolve(5)", bench.Resolve(5)}, {"Quota(5,2)", bench.Quota(5, 2)},
	}
	split := 0
	for _, b := range bodies {
		for _, name := range []string{"cdpor", "sdpor"} {
			want := summary(sequential(t, name, b.body, true))
			for _, w := range []int{2, 4} {
				rep, parts, _ := explore(t, name, b.body, w, 0, 1, true, true)
				split += parts - 1
				if got := summary(rep); got != want {
					t.Errorf("%s, %s, %d workers:\n%s\nwant (one engine):\n%s", b.name, name, w, got, want)
				}
			}
		}
	}
	if split == 0 {
		t.Error("no exploration was split")
	}
}

// TestShards checks that shards 0..n-1 of many programs add up to the
// whole exploration, and that each shard is the same with 1 and 2 workers.
func TestShards(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 8
	}
	for _, p := range programs(t, n) {
		for _, name := range p.engines {
			whole := sequential(t, name, p.body, true)
			for _, shards := range []int{2, 3} {
				var sum runtime.Stats
				for i := range shards {
					one, _, _ := explore(t, name, p.body, 1, i, shards, true, false)
					two, _, _ := explore(t, name, p.body, 2, i, shards, true, true)
					if summary(one) != summary(two) {
						t.Errorf("%s, shard %d/%d: 1 worker:\n%s\n2 workers:\n%s\nprogram:\n%s", name, i, shards, summary(one), summary(two), p.text)
					}
					sum.Executions += one.Executions
					sum.Complete += one.Complete
					sum.Blocked += one.Blocked
					sum.Dropped += one.Dropped
				}
				if sum.Executions != whole.Executions || sum.Complete != whole.Complete || sum.Blocked != whole.Blocked || sum.Dropped != whole.Dropped {
					t.Errorf("%s, %d shards: %+v, want %+v\nprogram:\n%s", name, shards, sum, whole.Stats, p.text)
				}
			}
		}
	}
}

// TestShardsRandom checks that the random engine's executions are dealt
// out without a start that every shard runs: into 256 parts of one size
// per shard, 2 shards of 2^14 executions each exactly half; and to more
// shards than there are parts of 256 for (40 shards, 8,192 parts at
// most), each shard with its share.
func TestShardsRandom(t *testing.T) {
	const n = 1 << 14
	for _, c := range []struct{ shard, shards, min, max int }{
		{0, 2, n / 2, n / 2}, {1, 2, n / 2, n / 2},
		{0, 40, n / 40 * 9 / 10, n / 40 * 11 / 10}, {39, 40, n / 40 * 9 / 10, n / 40 * 11 / 10},
	} {
		cfg := config(t, "random", 1, false)
		cfg.Runtime.Engine = random.New(engine.Config{Concolic: cfg.Runtime.Concolic, Executions: n})
		cfg.Shard, cfg.Shards = c.shard, c.shards
		rep, _, _ := parallel.RunParts(func() {
			var x atomic.Int32
			weft.Go(func() { x.Add(1) })
			x.Add(1)
		}, cfg, false)
		if rep.Executions < c.min || rep.Executions > c.max {
			t.Errorf("shard %d/%d: %d of %d executions, want %d to %d", c.shard, c.shards, rep.Executions, n, c.min, c.max)
		}
	}
}

// TestWorkersLimit checks that a limit on the executions bounds the whole
// exploration, however many workers share it and however often it splits:
// each worker stops at its first execution past the limit.
func TestWorkersLimit(t *testing.T) {
	body := func() {
		var x atomic.Int32
		for range 3 {
			weft.Go(func() {
				for range 2 {
					x.Add(1)
				}
			})
		}
	}
	whole := sequential(t, "condpor", body, false)
	for _, w := range []int{1, 2, 4} {
		for _, eager := range []bool{false, true} {
			for _, limit := range []int{1, 7, 50} {
				cfg := config(t, "condpor", w, false)
				cfg.Runtime.MaxExecutions = limit
				rep, _, _ := parallel.RunParts(body, cfg, eager)
				if rep.Executions < limit || rep.Executions > limit+w-1 || rep.Exhaustive {
					t.Errorf("%d workers, eager %v, limit %d: %d executions, exhaustive %v; want %d to %d (of %d), not exhaustive", w, eager, limit, rep.Executions, rep.Exhaustive, limit, limit+w-1, whole.Executions)
				}
			}
		}
	}
}

// TestWorkersTimeout checks that an exploration cut by its timeout ends
// soon after it, not exhaustive, however many workers share it, including
// sdpor's, whose parts may be parked waiting for parts the timeout cut
// (on POL(7,3), 5 to 10 waits in 200 ms with two workers).
func TestWorkersTimeout(t *testing.T) {
	for _, c := range []struct {
		name string
		body func()
	}{
		{"condpor", bench.Dispatcher(5, 4)}, // 15,282 executions, a second or more
		{"sdpor", bench.Poke(7, 3)},         // 2,440 and 90,072 redundant, 10 s or more
	} {
		for _, w := range []int{1, 2, 4} {
			for _, eager := range []bool{false, true} {
				cfg := config(t, c.name, w, false)
				cfg.Runtime.Timeout = 200 * time.Millisecond
				start := time.Now()
				rep, _, _ := parallel.RunParts(c.body, cfg, eager)
				if took := time.Since(start); rep.Exhaustive || rep.Executions == 0 || took > 5*time.Second {
					t.Errorf("%s, %d workers, eager %v: %d executions in %v, exhaustive %v; want some, soon after 200 ms, not exhaustive", c.name, w, eager, rep.Executions, took, rep.Exhaustive)
				}
			}
		}
	}
}

// waiter is an engine that waits for parts before it from its first
// Begin on, which returns after the exploration's timeout, and is ready
// at once.
type waiter struct {
	timeout time.Duration
	waits   bool
}

func (w *waiter) Begin(*engine.Exec) bool {
	time.Sleep(2 * w.timeout)
	w.waits = true
	return false
}
func (w *waiter) Step(*engine.Exec) engine.Decision { return engine.Decision{Verdict: engine.Stop} }
func (w *waiter) End(*engine.Exec, engine.Ending)   {}
func (w *waiter) Exhaustive() bool                  { return true }
func (w *waiter) Split(engine.Config) engine.Engine { return nil }
func (w *waiter) Waits() bool                       { return w.waits }
func (w *waiter) Ready() bool                       { return true }

// TestWaiterTimeout checks that a part that waits, cut by the timeout
// before its engine could say whether it still does, ends: run again, it
// would be cut again at once, forever.
func TestWaiterTimeout(t *testing.T) {
	const timeout = 20 * time.Millisecond
	cfg := config(t, "sdpor", 1, false)
	cfg.Runtime.Engine = &waiter{timeout: timeout}
	cfg.Runtime.Timeout = timeout
	done := make(chan *runtime.Report)
	go func() {
		rep, _, _ := parallel.RunParts(func() {}, cfg, false)
		done <- rep
	}()
	select {
	case rep := <-done:
		if rep.Exhaustive {
			t.Error("an exploration cut by its timeout is exhaustive")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not over 10 s after a timeout of 20 ms")
	}
}

// TestBallast checks that an exploration with several workers raises the
// collector's goal by its ballast once it splits, and one with a single
// worker does not.
func TestBallast(t *testing.T) {
	if old := debug.SetGCPercent(100); old < 0 {
		debug.SetGCPercent(old)
		t.Skip("GOGC=off: the collector has no goal")
	} else {
		debug.SetGCPercent(old)
	}
	goal := func() uint64 {
		goruntime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	var mu sync.Mutex
	during := map[int]uint64{}
	for _, w := range []int{1, 2} {
		body := func() {
			g := goal()
			mu.Lock()
			during[w] = max(during[w], g)
			mu.Unlock()
			var x atomic.Int32
			weft.Go(func() { x.Add(1) })
			x.Add(1)
		}
		// Eager: the exploration splits without waiting for a worker
		// to wait.
		explore(t, "condpor", body, w, 0, 1, false, true)
	}
	base := goal()
	if during[2] < base+parallel.BallastPerWorker || during[1] >= base+(during[2]-base)/2 {
		t.Errorf("the collector's goal was %d B with one worker and %d B with two, %d B after; want two workers' %d B (the ballast) above", during[1], during[2], base, parallel.BallastPerWorker)
	}
}

// longExecutions has executions of 12,000 events, with an alternative at
// almost every one.
func longExecutions() {
	var x atomic.Int64
	g := weft.Go(func() {
		for range 3000 {
			x.Add(1)
		}
	})
	for range 3000 {
		x.Add(1)
	}
	g.Join()
}

// TestStartStops checks that the start of a sharded exploration whose
// executions are long stops at its timeout: it split its first
// execution, a copy of its graph per alternative, for as long as that
// took.
func TestStartStops(t *testing.T) {
	cfg := config(t, "condpor", 1, false)
	cfg.Runtime.MaxSteps = 10_000
	cfg.Runtime.Timeout = 200 * time.Millisecond
	cfg.Shards = 2
	start := time.Now()
	rep := parallel.Run(longExecutions, cfg)
	// 25 times the timeout, for a loaded machine: the start that did not
	// stop took 12 s.
	if took := time.Since(start); rep.Ended || took > 5*time.Second {
		t.Errorf("ended %v after %v; want it cut by its timeout of %v", rep.Ended, took, cfg.Runtime.Timeout)
	}
}

// TestStartHolds checks that the parts of the start of a sharded
// exploration whose executions are long hold about as much as the start's
// bound, each a copy of the graph it split from (its events and their
// views' entries, engine.Sizer), not one per alternative (startEvents,
// here 1/16 of it).
func TestStartHolds(t *testing.T) {
	const bound = 1 << 18
	cfg := config(t, "condpor", 1, false)
	cfg.Runtime.MaxSteps = 10_000
	cfg.Runtime.MaxExecutions = 1 // the start only
	runtime.Run(longExecutions, cfg.Runtime)
	size := cfg.Runtime.Engine.(engine.Sizer).Size()
	cfg.Runtime.Engine = engines["condpor"](engine.Config{Concolic: cfg.Runtime.Concolic})
	cfg.Shards = 2
	_, parts, _ := parallel.RunParts(longExecutions, parallel.WithStartEvents(cfg, bound), false)
	// Shard 0 keeps every other part of the start.
	if most := (bound/size + 2) / 2; parts == 0 || parts > most {
		t.Errorf("%d parts in shard 0 of 2, of graphs of size %d: want 1 to %d", parts, size, most)
	}
}
