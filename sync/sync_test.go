package sync_test

import (
	"maps"
	stdsync "sync"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

func explore(t *testing.T, body func(), opts ...weft.Option) weft.Result {
	t.Helper()
	res, err := weft.Explore(body, append([]weft.Option{weft.WithMaxSteps(200)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// scenarios are small programs with the verdict Go's sync package gives
// them: no bug, or the kind of bug some interleaving has.
var scenarios = []struct {
	name string
	body func()
	want []weft.BugKind // nil: no bug in any execution
}{
	{"mutex excludes", func() {
		var m sync.Mutex
		var v weft.Var[int]
		inc := func() { m.Lock(); v.Store(v.Load() + 1); m.Unlock() }
		g := weft.Go(inc)
		inc()
		g.Join()
		weft.Assert(v.Load() == 2, "v = %d", v.Load())
	}, nil},
	{"unlocked var races", func() {
		var v weft.Var[int]
		g := weft.Go(func() { v.Store(v.Load() + 1) })
		v.Store(v.Load() + 1)
		g.Join()
	}, []weft.BugKind{weft.DataRace}},
	{"unlock by another goroutine", func() {
		var m sync.Mutex
		m.Lock()
		weft.Go(func() { m.Unlock() }).Join()
		m.Lock()
		m.Unlock()
	}, nil},
	{"unlock of unlocked mutex", func() {
		var m sync.Mutex
		m.Lock()
		m.Unlock()
		m.Unlock()
	}, []weft.BugKind{weft.Misuse}},
	{"readers share", func() {
		var rw sync.RWMutex
		rw.RLock()
		weft.Go(func() { rw.RLock(); rw.RUnlock() }).Join()
		rw.RUnlock()
	}, nil},
	{"writer excludes readers", func() {
		var rw sync.RWMutex
		rw.Lock()
		weft.Go(func() { rw.RLock(); rw.RUnlock() }).Join()
		rw.Unlock()
	}, []weft.BugKind{weft.Deadlock}},
	{"writer excludes writers", func() {
		var rw sync.RWMutex
		rw.RLock()
		weft.Go(func() { rw.Lock(); rw.Unlock() }).Join()
		rw.RUnlock()
	}, []weft.BugKind{weft.Deadlock}},
	{"recursive read lock with a waiting writer", func() {
		var rw sync.RWMutex
		rw.RLock()
		g := weft.Go(func() { rw.Lock(); rw.Unlock() })
		rw.RLock()
		rw.RUnlock()
		rw.RUnlock()
		g.Join()
	}, []weft.BugKind{weft.Deadlock}},
	{"rwmutex protects", func() {
		var rw sync.RWMutex
		var v weft.Var[int]
		g := weft.Go(func() { rw.Lock(); v.Store(1); rw.Unlock() })
		rw.RLock()
		_ = v.Load()
		rw.RUnlock()
		g.Join()
	}, nil},
	{"runlock of unlocked rwmutex", func() {
		var rw sync.RWMutex
		rw.RUnlock()
	}, []weft.BugKind{weft.Misuse}},
	{"commuting section of class 0", func() {
		var mu sync.Mutex
		mu.LockCommuting(0)
	}, []weft.BugKind{weft.Misuse}},
	{"commuting section of a class too large", func() {
		var mu sync.Mutex
		mu.LockCommuting(1 << 31)
	}, []weft.BugKind{weft.Misuse}},
	{"commuting sections", func() {
		var mu sync.Mutex
		var n weft.Var[int]
		g := weft.Go(func() { mu.LockCommuting(1); n.Store(n.Load() + 1); mu.Unlock() })
		mu.LockCommuting(1)
		n.Store(n.Load() + 1)
		mu.Unlock()
		g.Join()
		weft.Assert(n.Load() == 2, "n = %d", n.Load())
	}, nil},
	{"unlock of unlocked rwmutex", func() {
		var rw sync.RWMutex
		rw.Unlock()
	}, []weft.BugKind{weft.Misuse}},
	{"waitgroup waits", func() {
		var wg sync.WaitGroup
		var v weft.Var[int]
		wg.Add(1)
		weft.Go(func() { v.Store(1); wg.Done() })
		wg.Wait()
		weft.Assert(v.Load() == 1, "Wait returned before Done")
	}, nil},
	{"waitgroup go", func() {
		var wg sync.WaitGroup
		var n atomic.Int32
		wg.Go(func() { n.Add(1) })
		wg.Go(func() { n.Add(1) })
		wg.Wait()
		weft.Assert(n.Load() == 2, "n = %d", n.Load())
	}, nil},
	{"negative waitgroup counter", func() {
		var wg sync.WaitGroup
		wg.Done()
	}, []weft.BugKind{weft.Misuse}},
	{"waitgroup never done", func() {
		var wg sync.WaitGroup
		wg.Add(1)
		wg.Wait()
	}, []weft.BugKind{weft.Deadlock}},
	{"once runs once and waits", func() {
		var once sync.Once
		var v weft.Var[int]
		var n atomic.Int32
		f := func() { n.Add(1); v.Store(42) }
		g := weft.Go(func() { once.Do(f); weft.Assert(v.Load() == 42, "Do returned before f") })
		once.Do(f)
		weft.Assert(v.Load() == 42, "Do returned before f")
		g.Join()
		weft.Assert(n.Load() == 1, "f ran %d times", n.Load())
	}, nil},
	{"cond signal wakes one of two", func() {
		var m sync.Mutex
		c := sync.NewCond(&m)
		var waiting atomic.Int32
		for range 2 {
			weft.Go(func() { m.Lock(); waiting.Add(1); c.Wait(); m.Unlock() })
		}
		m.Lock()
		weft.Assume(waiting.Load() == 2)
		c.Signal()
		m.Unlock()
	}, []weft.BugKind{weft.GoroutineLeak}},
	{"cond broadcast wakes all", func() {
		var m sync.Mutex
		c := sync.NewCond(&m)
		var waiting atomic.Int32
		wait := func() { m.Lock(); waiting.Add(1); c.Wait(); m.Unlock() }
		g1, g2 := weft.Go(wait), weft.Go(wait)
		m.Lock()
		weft.Assume(waiting.Load() == 2)
		c.Broadcast()
		m.Unlock()
		g1.Join()
		g2.Join()
	}, nil},
	{"cond wait without the lock", func() {
		var m sync.Mutex
		sync.NewCond(&m).Wait()
	}, []weft.BugKind{weft.Misuse}},
}

func TestScenarios(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			res := explore(t, s.body, weft.WithAllBugs())
			got := map[weft.BugKind]bool{}
			for _, b := range res.Bugs {
				got[b.Kind] = true
			}
			want := map[weft.BugKind]bool{}
			for _, k := range s.want {
				want[k] = true
			}
			if !maps.Equal(got, want) {
				t.Fatalf("bug kinds %v, want %v\n%v", got, want, res.Bugs)
			}
			if !res.Exhaustive {
				t.Errorf("not exhaustive")
			}
		})
	}
}

// TestSignalExploresEveryWaiter checks that Signal may wake either waiter.
func TestSignalExploresEveryWaiter(t *testing.T) {
	woken := map[int32]bool{}
	explore(t, func() {
		var m sync.Mutex
		c := sync.NewCond(&m)
		var waiting, first atomic.Int32
		for i := range int32(2) {
			weft.Go(func() {
				m.Lock()
				waiting.Add(1)
				c.Wait()
				first.CompareAndSwap(0, i+1)
				m.Unlock()
			})
		}
		m.Lock()
		weft.Assume(waiting.Load() == 2)
		c.Signal()
		m.Unlock()
		m.Lock()
		c.Signal()
		m.Unlock()
		m.Lock()
		weft.Assume(first.Load() != 0)
		woken[first.Load()] = true
		m.Unlock()
	}, weft.WithWorkers(1)) // the body records what it saw in a map
	if !woken[1] || !woken[2] {
		t.Errorf("first woken waiters seen: %v, want both", woken)
	}
}

// TestTryLock compares TryLock sequences with the standard library.
func TestTryLock(t *testing.T) {
	var std stdsync.Mutex
	var stdrw stdsync.RWMutex
	explore(t, func() {
		var m sync.Mutex
		var rw sync.RWMutex
		steps := []struct {
			name      string
			got, want func() bool
		}{
			{"trylock free", m.TryLock, std.TryLock},
			{"trylock held", m.TryLock, std.TryLock},
			{"unlock", func() bool { m.Unlock(); return true }, func() bool { std.Unlock(); return true }},
			{"trylock again", m.TryLock, std.TryLock},
			{"tryrlock free", rw.TryRLock, stdrw.TryRLock},
			{"tryrlock shared", rw.TryRLock, stdrw.TryRLock},
			{"trylock with readers", rw.TryLock, stdrw.TryLock},
			{"runlock", func() bool { rw.RUnlock(); rw.RUnlock(); return true }, func() bool { stdrw.RUnlock(); stdrw.RUnlock(); return true }},
			{"trylock free rw", rw.TryLock, stdrw.TryLock},
			{"tryrlock with writer", rw.TryRLock, stdrw.TryRLock},
		}
		for _, s := range steps {
			if got, want := s.got(), s.want(); got != want {
				t.Errorf("%s: got %v, want %v", s.name, got, want)
			}
		}
	})
}

// TestLocksExploreEveryOrder checks that N goroutines taking one lock once
// each finish in all N! orders.
func TestLocksExploreEveryOrder(t *testing.T) {
	orders := map[string]bool{}
	explore(t, func() {
		var m sync.Mutex
		var order weft.Var[string]
		var gs []*weft.Goroutine
		for _, name := range []string{"a", "b", "c"} {
			gs = append(gs, weft.Go(func() { m.Lock(); order.Store(order.Load() + name); m.Unlock() }))
		}
		for _, g := range gs {
			g.Join()
		}
		orders[order.Load()] = true
	}, weft.WithWorkers(1)) // the body records what it saw in a map
	if len(orders) != 6 {
		t.Errorf("orders seen: %v, want all 6", orders)
	}
}
