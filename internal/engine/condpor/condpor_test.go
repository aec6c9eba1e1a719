package condpor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/sync"
)

func run(t testing.TB, body func()) *runtime.Report {
	t.Helper()
	rep := runtime.Run(body, runtime.Config{Engine: condpor.New(engine.Config{}), MaxSteps: 10_000})
	for _, f := range rep.Bugs {
		t.Fatalf("unexpected bug: %v: %s", f.Bug.Kind, f.Bug.Message)
	}
	return rep
}

func joinAll(gs ...*weft.Goroutine) {
	for _, g := range gs {
		g.Join()
	}
}

func factorial(n int) int {
	if n <= 1 {
		return 1
	}
	return n * factorial(n-1)
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// lastzero is GenMC's test: array[0..n]; goroutine 0 scans from the end for
// a zero, goroutine j copies array[j-1]+1 into array[j].
func lastzero(n int) func() {
	return func() {
		a := make([]atomic.Int32, n+1)
		gs := []*weft.Goroutine{weft.Go(func() {
			for i := n; a[i].Load() != 0; i-- {
			}
		})}
		for j := 1; j <= n; j++ {
			gs = append(gs, weft.Go(func() { a[j].Store(a[j-1].Load() + 1) }))
		}
		joinAll(gs...)
	}
}

// fibBench is SV-COMP's fib_bench as GenMC runs it: two goroutines each
// compute five Fibonacci steps into x and y, a third checks the bound.
func fibBench(n int32, bound int32) func() {
	return func() {
		var x, y atomic.Int32
		x.Store(1)
		y.Store(1)
		g1 := weft.Go(func() {
			for range n {
				a, b := x.Load(), y.Load()
				x.Store(a + b)
			}
		})
		g2 := weft.Go(func() {
			for range n {
				a, b := x.Load(), y.Load()
				y.Store(a + b)
			}
		})
		g3 := weft.Go(func() {
			weft.Assert(!(x.Load() > bound || y.Load() > bound), "fib bound exceeded")
		})
		joinAll(g1, g2, g3)
	}
}

func TestKnownCounts(t *testing.T) {
	tests := []struct {
		name string
		body func()
		want int
	}{
		{"SB", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); y.Load() })
			y.Store(1)
			x.Load()
			g.Join()
		}, 3},
		{"MP", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); y.Store(1) })
			y.Load()
			x.Load()
			g.Join()
		}, 3},
		{"LB", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Load(); y.Store(1) })
			y.Load()
			x.Store(1)
			g.Join()
		}, 3},
		{"IRIW", func() {
			var x, y atomic.Int32
			joinAll(
				weft.Go(func() { x.Store(1) }),
				weft.Go(func() { y.Store(1) }),
				weft.Go(func() { x.Load(); y.Load() }),
				weft.Go(func() { y.Load(); x.Load() }))
		}, 15},
		{"2+2W", func() {
			var x, y atomic.Int32
			g := weft.Go(func() { x.Store(1); y.Store(2) })
			y.Store(1)
			x.Store(2)
			g.Join()
		}, 3},
		{"lastzero(5)", lastzero(5), 64},
	}
	for n := 1; n <= 5; n++ {
		tests = append(tests, struct {
			name string
			body func()
			want int
		}{fmt.Sprintf("%d critical sections", n), func() {
			var m sync.Mutex
			var v weft.Var[int]
			var gs []*weft.Goroutine
			for range n {
				gs = append(gs, weft.Go(func() { m.Lock(); v.Store(v.Load() + 1); m.Unlock() }))
			}
			joinAll(gs...)
		}, factorial(n)}, struct {
			name string
			body func()
			want int
		}{fmt.Sprintf("%d adds", n), func() {
			var x atomic.Int64
			var gs []*weft.Goroutine
			for range n {
				gs = append(gs, weft.Go(func() { x.Add(1) }))
			}
			joinAll(gs...)
		}, factorial(n)}, struct {
			name string
			body func()
			want int
		}{fmt.Sprintf("one writer, %d readers", n), func() {
			var x atomic.Int64
			gs := []*weft.Goroutine{weft.Go(func() { x.Store(1) })}
			for range n {
				gs = append(gs, weft.Go(func() { x.Load() }))
			}
			joinAll(gs...)
		}, 1 << n})
	}
	for k := 1; k <= 4; k++ {
		tests = append(tests, struct {
			name string
			body func()
			want int
		}{fmt.Sprintf("2 goroutines x %d critical sections", k), func() {
			var m sync.Mutex
			cs := func() {
				for range k {
					m.Lock()
					m.Unlock()
				}
			}
			joinAll(weft.Go(cs), weft.Go(cs))
		}, binomial(2*k, k)})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(t, tc.body)
			if rep.Complete != tc.want || rep.Blocked != 0 || !rep.Exhaustive {
				t.Errorf("%d complete, %d blocked (exhaustive %v); want %d complete, 0 blocked", rep.Complete, rep.Blocked, rep.Exhaustive, tc.want)
			}
		})
	}
}

// TestFibBench checks GenMC's count for fib_bench: 218,243 complete
// executions.
func TestFibBench(t *testing.T) {
	if testing.Short() {
		t.Skip("fib_bench takes a few seconds")
	}
	rep := run(t, fibBench(5, 144))
	if rep.Complete != 218243 {
		t.Errorf("fib_bench: %d complete executions, want 218243", rep.Complete)
	}
	t.Logf("fib_bench: %d executions in %v (%.0f/s)", rep.Executions, rep.Elapsed, float64(rep.Executions)/rep.Elapsed.Seconds())
}

func BenchmarkFibBench(b *testing.B) {
	execs := 0
	for b.Loop() {
		execs += run(b, fibBench(5, 144)).Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
}

// outcome is what an engine found on a program.
type outcome struct {
	complete int
	bug      bool
	stopped  bool // a limit cut the exploration
}

// reference explores p with dfs and counts the Shasha-Snir classes of its
// complete executions.
func reference(p progtest.Program, limit int) outcome {
	d := dfs.New(engine.Config{}).(*dfs.Engine)
	classes := map[uint64]bool{}
	d.OnComplete = func(c uint64) { classes[c] = true }
	rep := runtime.Run(p.Body(), runtime.Config{Engine: d, MaxExecutions: limit, AllBugs: true, MaxSteps: 1000})
	return outcome{complete: len(classes), bug: len(rep.Bugs) > 0, stopped: !rep.Exhaustive}
}

func optimal(p progtest.Program) (outcome, *runtime.Report) {
	rep := runtime.Run(p.Body(), runtime.Config{Engine: condpor.New(engine.Config{}), AllBugs: true, MaxSteps: 1000})
	return outcome{complete: rep.Complete, bug: len(rep.Bugs) > 0}, rep
}

// differential compares condpor with dfs on one program: when dfs finds no
// bug, condpor must explore exactly as many complete executions as dfs
// finds classes; and both must agree on whether the program has a bug.
func differential(t *testing.T, p progtest.Program) bool {
	t.Helper()
	ref := reference(p, 20_000)
	if ref.stopped {
		return false
	}
	got, rep := optimal(p)
	if got.bug != ref.bug {
		var bugs []string
		for _, f := range rep.Bugs {
			bugs = append(bugs, f.Bug.Message)
		}
		t.Fatalf("program\n%v: dfs found a bug: %v, condpor found a bug: %v %v", p, ref.bug, got.bug, bugs)
	}
	if !ref.bug && got.complete != ref.complete {
		t.Fatalf("program\n%v: condpor explored %d complete executions, dfs found %d classes", p, got.complete, ref.complete)
	}
	return true
}

var diffKinds = []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume}

func TestDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	compared := 0
	for compared < 1000 {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 4}, Ops: [2]int{1, 4}, Locs: 1 + rng.IntN(3), LockedRatio: 0.25, Kinds: diffKinds})
		if p.Ops() > 8 {
			continue // dfs would take too long
		}
		if differential(t, p) {
			compared++
		}
	}
}

// TestDifferentialBugs compares verdicts on programs with assertions, plain
// Vars (races) and unbalanced locks (deadlocks, misuse).
func TestDifferentialBugs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	kinds := []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore, progtest.Lock, progtest.Unlock}
	compared := 0
	for compared < 300 {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{2, 3}, Ops: [2]int{1, 4}, Locs: 1 + rng.IntN(2), LockedRatio: 0.2, Kinds: kinds})
		if p.Ops() > 8 {
			continue
		}
		if differential(t, p) {
			compared++
		}
	}
}

func FuzzDifferential(f *testing.F) {
	f.Add([]byte{2, 0x01, 0x10, 0x12, 0x01, 0xff, 0, 0x14, 0x02, 0x15, 0x00})
	f.Add([]byte{3, 0x04, 0x00, 0x03, 0x21, 0x05, 0x00, 0xff, 0, 0x08, 0x01, 0x09, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		differential(t, progtest.FromBytes(data))
	})
}
