package condpor_test

import (
	"strconv"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/sync"
)

// Benchmarks of the cost of one long execution, which should grow
// linearly with its length and its number of goroutines: weft test on
// golang.org/x/sync meets executions of tens of thousands of events.

// runOnce runs the first execution of body and fails b unless it
// completes.
func runOnce(b *testing.B, body func()) { runFirst(b, body, 1) }

// runFirst runs the first n executions of body and fails b unless they
// all complete.
func runFirst(b *testing.B, body func(), n int) {
	b.Helper()
	conc := concolicConfig(b)
	rep := runtime.Run(body, runtime.Config{Engine: condpor.New(engine.Config{Concolic: conc}), Concolic: conc, MaxExecutions: n, MaxSteps: 1 << 20})
	if rep.Internal != "" || len(rep.Bugs) > 0 || rep.Complete != n {
		b.Fatalf("%d complete, bugs %v, internal %q; want %d complete", rep.Complete, rep.Bugs, rep.Internal, n)
	}
}

// BenchmarkSpinLoop is the spin loop of TryAcquire and Release of
// x/sync's semaphore: a mutex-protected counter and a channel, n
// operations in all, while a second goroutine waits on the channel.
func BenchmarkSpinLoop(b *testing.B) {
	for _, n := range []int{2000, 5000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			body := func() {
				var mu sync.Mutex
				var cur weft.Var[int]
				c := weft.MakeChan[int](1)
				done := weft.MakeChan[int](0)
				g := weft.Go(func() { done.Recv() })
				for range n / 6 {
					mu.Lock()
					cur.Store(cur.Load() + 1)
					mu.Unlock()
					c.Send(1)
					c.Recv()
				}
				done.Close()
				g.Join()
			}
			for b.Loop() {
				runOnce(b, body)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/operation")
		})
	}
}

// BenchmarkManyGoroutines is errgroup.SetLimit's pattern: n goroutines,
// each started once a semaphore channel has room, updating a
// mutex-protected counter and freeing its slot.
func BenchmarkManyGoroutines(b *testing.B) {
	for _, n := range []int{250, 500, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			body := limited(n)
			for b.Loop() {
				runOnce(b, body)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/goroutine")
		})
	}
}

// BenchmarkManyGoroutinesRevisited is BenchmarkManyGoroutines for 1,000
// goroutines, its first 20 executions: the later ones are revisits, which
// copy the graph (x/sync's TestGoLimit).
func BenchmarkManyGoroutinesRevisited(b *testing.B) {
	body := limited(1000)
	for b.Loop() {
		runFirst(b, body, 20)
	}
}

// limited is errgroup.SetLimit's pattern with n goroutines.
func limited(n int) func() {
	return func() {
		var mu sync.Mutex
		var cur weft.Var[int]
		sem := weft.MakeChan[int](4)
		gs := make([]*weft.Goroutine, n)
		for i := range gs {
			sem.Send(1)
			gs[i] = weft.Go(func() {
				mu.Lock()
				cur.Store(cur.Load() + 1)
				mu.Unlock()
				sem.Recv()
			})
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// BenchmarkStepLimit is golang-lru's Test2Q_RandomOps: one goroutine
// locking and unlocking a mutex until the step limit stops it at n
// operations, and the trace of that bug, which linearizes the whole
// execution. Before the linearization used the index of reads by write
// and computed the coherence indexes once: 0.37 s at 5,000 operations,
// 19 s at 20,000 (golang-lru's 100,000 took 190 s); after, 24 ms and
// 90 ms.
func BenchmarkStepLimit(b *testing.B) {
	for _, n := range []int{5000, 20000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			body := func() {
				var mu sync.Mutex
				for {
					mu.Lock()
					mu.Unlock()
				}
			}
			for b.Loop() {
				conc := concolicConfig(b)
				rep := runtime.Run(body, runtime.Config{Engine: condpor.New(engine.Config{Concolic: conc}), Concolic: conc, MaxExecutions: 1, MaxSteps: n})
				if rep.Internal != "" || len(rep.Bugs) != 1 || rep.Bugs[0].Bug.Kind != engine.StepLimit {
					b.Fatalf("bugs %v, internal %q; want a step limit", rep.Bugs, rep.Internal)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/operation")
		})
	}
}
