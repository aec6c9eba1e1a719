package indep_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/qpor"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/sync"
	"weft.dev/weft/time"
)

func withQPOR(k int) func(*concolic.Config, func(uint64), func(uint64)) engine.Engine {
	return func(conc *concolic.Config, trace, class func(uint64)) engine.Engine {
		q := qpor.Options{K: k}.New(engine.Config{Concolic: conc}).(*qpor.Engine)
		q.OnTrace, q.OnComplete = trace, class
		return q
	}
}

// qporStats sums, per k (0: optimal), what qpor did over the programs.
type qporStats struct {
	programs, traces int
	complete, ssb    [4]int
	bugs             progtest.BugFigures
}

// compareQPOR checks qpor, optimal and with k = 1, 2, 3, against dfs on one
// program: the same bug kinds, each of dfs's traces completed exactly
// once and nothing else, and each of dfs's classes of bug endings reached
// and nothing else, a deadlock or a leak exactly once, for every k (Alg. 1
// reaches a maximal configuration at most once, whatever its
// alternatives; see checkQPORBugs); optimal qpor abandons no execution
// when the program has no symbolic branch (whose outcomes an alternative
// may combine infeasibly). It returns false when dfs needs more than
// limit executions.
func compareQPOR(t *testing.T, p progtest.Program, limit int, symbolic bool, s *qporStats) bool {
	t.Helper()
	body := p.Body()
	ref := explore(body, limit, withDFS)
	if !ref.exhaustive {
		return false
	}
	s.bugs.AddRef("dfs", ref.bugs)
	for k := range 4 {
		got := explore(body, 0, withQPOR(k))
		checkQPORBugs(t, k, ref, got, p)
		s.bugs.Add(fmt.Sprintf("qpor k=%d", k), got.bugs)
		if !maps.Equal(got.kinds, ref.kinds) {
			t.Errorf("qpor k=%d finds bug kinds %v, dfs %v, on\n%s", k, slices.Sorted(maps.Keys(got.kinds)), slices.Sorted(maps.Keys(ref.kinds)), p)
			continue
		}
		missed, extra, twice := compareTraces(ref, got)
		if missed > 0 || extra > 0 || twice > 0 {
			t.Errorf("qpor k=%d: %d of dfs's %d traces missed, %d unknown, %d explored more than once, on\n%s", k, missed, len(ref.traces), extra, twice, p)
		}
		if k == 0 && !symbolic && got.redundant > 0 {
			t.Errorf("optimal qpor abandoned %d executions of\n%s", got.redundant, p)
		}
		s.complete[k] += got.complete
		s.ssb[k] += got.redundant
	}
	s.programs++
	s.traces += len(ref.traces)
	return true
}

func differentialQPOR(t *testing.T, seed uint64, n int, c progtest.Config, maxOps int, symbolic bool) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var s qporStats
	for s.programs < progtest.Programs(t, n) {
		c := c
		c.Locs = 1 + rng.IntN(c.Locs)
		p := progtest.Generate(rng, c)
		if p.Ops() > maxOps {
			continue
		}
		compareQPOR(t, p, 20_000, symbolic, &s)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d programs, %d traces; qpor complete/abandoned: optimal %d/%d, k=1 %d/%d, k=2 %d/%d, k=3 %d/%d; %s",
		s.programs, s.traces, s.complete[0], s.ssb[0], s.complete[1], s.ssb[1], s.complete[2], s.ssb[2], s.complete[3], s.ssb[3], &s.bugs)
}

// checkQPORBugs checks the bug endings of qpor with k (0: optimal)
// against dfs's on the program p: every class reached, nothing else, a
// deadlock or a leak exactly once, and no maximal configuration, with
// bugs or without, reached twice. A deadlock or a leak is a maximal
// configuration, which Alg. 1 reaches at most once. A failure is not:
// going on past bugs, qpor explores maximal configurations, and every one
// that contains the failing event reaches its local configuration, so
// that a failure independent of a goroutine's two orders of stores is
// reached twice; those executions are not redundant, as the bugs and
// traces after the failure are found in them (see the package
// documentation of qpor).
func checkQPORBugs(t *testing.T, k int, ref, got explored, p fmt.Stringer) {
	t.Helper()
	if missed, extra, twice := progtest.CompareBugs(ref.bugs, got.bugs, progtest.Whole); missed > 0 || extra > 0 || twice > 0 {
		t.Errorf("qpor k=%d: %d of dfs's %d classes of bug endings missed, %d unknown, %d deadlocks or leaks reached more than once, on\n%s", k, missed, len(ref.bugs), extra, twice, p)
	}
	for _, n := range got.maximal {
		if n > 1 {
			t.Errorf("qpor k=%d reaches a maximal configuration %d times, on\n%s", k, n, p)
			break
		}
	}
}

// TestQPOR compares qpor with dfs on random programs of memory, critical
// sections, plain Vars (races), assumptions and assertions, goroutines
// started midway, and symbolic values.
func TestQPOR(t *testing.T) {
	for _, c := range []struct {
		name     string
		seed     uint64
		n        int
		c        progtest.Config
		symbolic bool
	}{
		{"memory", 41, 80, progtest.Config{Goroutines: [2]int{2, 4}, Ops: [2]int{1, 4}, Locs: 3, LockedRatio: 0.25,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume}}, false},
		{"bugs", 43, 80, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 2, LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore, progtest.Lock, progtest.Unlock}}, false},
		{"locks", 49, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 2, LockedRatio: 0.4,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS}}, false},
		{"spawns", 45, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 4}, Locs: 2, LockedRatio: 0.25,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Lock, progtest.Go}}, false},
		{"symbolic", 47, 40, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{2, 4}, Locs: 2, LockedRatio: 0.1,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.SymNew, progtest.SymStore, progtest.SymLoad, progtest.SymBranch, progtest.SymAssume}}, true},
		{"awaits", 53, 60, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 2, LockedRatio: 0.2,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Await}}, false},
		{"channels", 51, 80, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 3}, Locs: 3,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.ChanSend, progtest.ChanRecv, progtest.ChanClose, progtest.ChanLen, progtest.ChanSelect}}, false},
	} {
		t.Run(c.name, func(t *testing.T) { differentialQPOR(t, c.seed, c.n, c.c, 8, c.symbolic) })
	}
}

// TestQPORSync compares qpor (each trace once for every k, none
// redundant when optimal) with dfs on the sync objects progtest does not
// generate, whose operations are semaphores and notify lists
// (RWMutex, WaitGroup, Once, Cond) or fail without writing (TryLock).
func TestQPORSync(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
	}{
		{"rwmutex", func() {
			var mu sync.RWMutex
			var x weft.Var[int]
			g := weft.Go(func() { mu.RLock(); _ = x.Load(); mu.RUnlock() })
			mu.Lock()
			x.Store(1)
			mu.Unlock()
			mu.RLock()
			_ = x.Load()
			mu.RUnlock()
			g.Join()
		}},
		{"waitgroup", func() {
			var wg sync.WaitGroup
			var x, y atomic.Int32
			wg.Add(2)
			weft.Go(func() { x.Store(1); wg.Done() })
			weft.Go(func() { y.Store(1); wg.Done() })
			wg.Wait()
			weft.Assert(x.Load()+y.Load() == 2, "wait returned early")
		}},
		{"once", func() {
			var once sync.Once
			var x atomic.Int32
			g := weft.Go(func() { once.Do(func() { x.Add(1) }) })
			once.Do(func() { x.Add(10) })
			g.Join()
			weft.Assert(x.Load() != 11, "twice")
		}},
		{"cond", func() {
			var mu sync.Mutex
			c := sync.NewCond(&mu)
			var ready weft.Var[bool]
			var woken atomic.Int32
			wait := func() {
				mu.Lock()
				for !ready.Load() {
					c.Wait()
				}
				mu.Unlock()
				woken.Add(1)
			}
			g, h := weft.Go(wait), weft.Go(wait)
			mu.Lock()
			ready.Store(true)
			c.Signal()
			mu.Unlock()
			c.Broadcast()
			g.Join()
			h.Join()
		}},
		{"trylock", func() {
			var mu sync.Mutex
			var x atomic.Int32
			try := func() {
				if mu.TryLock() {
					x.Add(1)
					mu.Unlock()
				}
			}
			g := weft.Go(try)
			try()
			mu.Lock()
			mu.Unlock()
			g.Join()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { eachTraceOnce(t, tc.body) })
	}
}

// TestQPORChannels compares qpor (each trace once for every k, none
// redundant when optimal) with dfs on channel programs progtest does not
// generate: loops of rendezvous, selects over several channels, with and
// without default, nil channels, closes racing sends, and what weft
// builds on channels (sync.Pool's choice, weft/time's clock).
func TestQPORChannels(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
	}{
		{"pingpong", func() {
			ping, pong := weft.MakeChan[int](0), weft.MakeChan[int](0)
			g := weft.Go(func() {
				for range 3 {
					v, _ := ping.Recv()
					pong.Send(v + 1)
				}
			})
			for i := range 3 {
				ping.Send(i)
				v, _ := pong.Recv()
				weft.Assert(v == i+1, "wrong reply")
			}
			g.Join()
		}},
		{"producers", func() {
			c := weft.MakeChan[int](2)
			done := weft.MakeChan[bool](0)
			for p := range 2 {
				weft.Go(func() {
					c.Send(p)
					c.Send(p + 10)
					done.Send(true)
				})
			}
			sum := 0
			for range 4 {
				v, _ := c.Recv()
				sum += v
			}
			done.Recv()
			done.Recv()
			weft.Assert(sum == 22, "lost a value")
		}},
		{"select loop", func() {
			a, b := weft.MakeChan[int](0), weft.MakeChan[int](1)
			weft.Go(func() { a.Send(1); a.Close() })
			weft.Go(func() { b.Send(2); b.Send(3) })
			got := 0
			for got < 3 {
				var v int
				var ok bool
				switch weft.Select(a.RecvCase(&v, &ok), b.RecvCase(&v, &ok)) {
				case 0:
					if !ok {
						a = nil // a nil channel is never ready
						continue
					}
				}
				got++
			}
		}},
		{"select default", func() {
			c := weft.MakeChan[int](0)
			d := weft.MakeChan[int](1)
			weft.Go(func() {
				weft.Select(c.SendCase(1), weft.Default())
				d.Send(1)
			})
			weft.Select(c.RecvCase(nil, nil), d.RecvCase(nil, nil), weft.Default())
			weft.Select(c.RecvCase(nil, nil), d.RecvCase(nil, nil), weft.Default())
		}},
		{"close races send", func() {
			c := weft.MakeChan[int](1)
			g := weft.Go(func() { c.Send(1) })
			weft.Go(func() { _ = c.Len() })
			c.Close()
			g.Join()
		}},
		{"pool", func() {
			var p sync.Pool
			var wg sync.WaitGroup
			wg.Add(1)
			weft.Go(func() { p.Put(1); wg.Done() })
			p.Put(2)
			_ = p.Get()
			wg.Wait()
		}},
		{"timeout", func() {
			reply := weft.MakeChan[int](0)
			weft.Go(func() {
				time.Sleep(2 * time.Second)
				weft.Select(reply.SendCase(42), weft.Default())
			})
			weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { eachTraceOnce(t, tc.body) })
	}
}

// mapOnes returns the keys of m, each counted once.
func mapOnes(m map[uint64]int) map[uint64]int {
	out := map[uint64]int{}
	for h := range m {
		out[h] = 1
	}
	return out
}

// eachTraceOnce checks that qpor, for k = 0 (optimal) to 3, finds dfs's
// bug kinds, explores each of dfs's traces exactly once, with no
// redundant execution when optimal, and reaches each of dfs's classes of
// bug endings (checkQPORBugs).
func eachTraceOnce(t *testing.T, body func()) {
	t.Helper()
	ref := explore(body, 200_000, withDFS)
	if !ref.exhaustive {
		t.Fatalf("dfs did not finish")
	}
	var f progtest.BugFigures
	f.AddRef("dfs", ref.bugs)
	for k := range 4 {
		got := explore(body, 0, withQPOR(k))
		if !maps.Equal(got.kinds, ref.kinds) || !maps.Equal(got.traces, mapOnes(ref.traces)) || k == 0 && got.redundant > 0 {
			t.Errorf("qpor k=%d: kinds %v, %d traces (%d complete), %d redundant; dfs: kinds %v, %d traces",
				k, got.kinds, len(got.traces), got.complete, got.redundant, ref.kinds, len(ref.traces))
		}
		checkQPORBugs(t, k, ref, got, source("the body"))
		f.Add(fmt.Sprintf("qpor k=%d", k), got.bugs)
	}
	t.Logf("%d traces, %d of dfs's executions; %s", len(ref.traces), ref.complete, &f)
}

// source names a program that has no text to show.
type source string

func (s source) String() string { return string(s) }

// TestQPORBugEndings checks, on small programs, how many of qpor's
// executions reach each class of bug ending that dfs counts: a deadlock
// or a leak exactly once, a failure once per maximal configuration that
// contains it (see checkQPORBugs), for every k.
func TestQPORBugEndings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    func()
		classes map[engine.BugKind]int // dfs's classes, by kind
		reached map[engine.BugKind]int // qpor's executions that reach one, by kind
	}{
		{"failure beside two orders of stores", func() {
			var x atomic.Int32
			weft.Go(func() { weft.Assert(false, "always") })
			weft.Go(func() { x.Store(1) })
			x.Store(2)
		}, map[engine.BugKind]int{engine.AssertionFailed: 1}, map[engine.BugKind]int{engine.AssertionFailed: 2}},
		{"failure after either order", func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(1) })
			x.Store(2)
			g.Join()
			weft.Assert(x.Load() == 1, "stored last")
		}, map[engine.BugKind]int{engine.AssertionFailed: 1}, map[engine.BugKind]int{engine.AssertionFailed: 1}},
		{"lock order", func() {
			var a, b sync.Mutex
			var x atomic.Int32
			weft.Go(func() { x.Store(1) })
			g := weft.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
			x.Store(2)
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
			g.Join()
		}, map[engine.BugKind]int{engine.Deadlock: 2}, map[engine.BugKind]int{engine.Deadlock: 2}},
		{"leak after a race of stores", func() {
			c := weft.MakeChan[int](0)
			var x atomic.Int32
			weft.Go(func() { x.Store(1); c.Send(1) })
			x.Store(2)
		}, map[engine.BugKind]int{engine.GoroutineLeak: 2}, map[engine.BugKind]int{engine.GoroutineLeak: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := explore(tc.body, 0, withDFS)
			if got := ref.bugs.Kinds(false); !maps.Equal(got, tc.classes) {
				t.Errorf("dfs: %v classes, want %v", got, tc.classes)
			}
			for k := range 4 {
				got := explore(tc.body, 0, withQPOR(k))
				checkQPORBugs(t, k, ref, got, source(tc.name))
				if n := got.bugs.Kinds(true); !maps.Equal(n, tc.reached) {
					t.Errorf("qpor k=%d: %v executions reach a class, want %v", k, n, tc.reached)
				}
			}
		})
	}
}
