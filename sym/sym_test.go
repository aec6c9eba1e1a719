package sym_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

func explore(t *testing.T, body func(), opts ...weft.Option) weft.Result {
	t.Helper()
	res, err := weft.Explore(body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// cell is a shared location holding a symbolic value (an atomic.Value, so
// that sharing it is not a race).
type cell struct{ v atomic.Value }

func (c *cell) load() sym.Int {
	if v := c.v.Load(); v != nil {
		return v.(sym.Int)
	}
	return sym.Int{}
}

func (c *cell) store(x sym.Int) { c.v.Store(x) }

// rsw is the paper's RS+W: a := x; b := nondet(); assert(a = 0 ∨ b ≠ 42) ∥ x := 1.
func rsw(assert bool) func() {
	return func() {
		var x atomic.Int64
		g := weft.Go(func() { x.Store(1) })
		a := x.Load()
		b := sym.NewInt("b")
		cond := sym.Const(a).Eq(sym.Const(0)).Or(b.Ne(sym.Const(42)))
		if assert {
			sym.Assert(cond, "a = %d and b = 42", a)
		} else {
			cond.Eval()
		}
		g.Join()
	}
}

func TestPaperExamples(t *testing.T) {
	res := explore(t, rsw(true))
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed {
		t.Errorf("RS+W: bugs %v, want the assertion failure", res.Bugs)
	}
	res = explore(t, rsw(false))
	if res.Complete != 3 || len(res.Bugs) != 0 {
		t.Errorf("RS+W with a bare Eval: %d complete executions, bugs %v; want 3", res.Complete, res.Bugs)
	}
	// W+SW+R+R: x := 1 ∥ y := nondet() ∥ y = 42 evaluated ∥ b := x.
	res = explore(t, func() {
		var x atomic.Int64
		var y cell
		gs := []*weft.Goroutine{
			weft.Go(func() { x.Store(1) }),
			weft.Go(func() { y.store(sym.NewInt("s")) }),
			weft.Go(func() { y.load().Eq(sym.Const(42)).Eval() }),
			weft.Go(func() { x.Load() }),
		}
		for _, g := range gs {
			g.Join()
		}
	})
	if res.Complete != 6 || len(res.Bugs) != 0 {
		t.Errorf("W+SW+R+R: %d complete executions, bugs %v; want 6", res.Complete, res.Bugs)
	}
}

// counter1 is BENCHMARKS.md's Counter1(N): N goroutines with symbolic ids
// created by main; each increments c1 or c2, depending on the parity of its
// id, under one mutex.
func counter1(n int, twoLocks bool) func() {
	return func() {
		var m1, m2 sync.Mutex
		var c1, c2 weft.Var[int]
		ids := make([]sym.Int, n)
		for i := range ids {
			ids[i] = sym.NewInt(fmt.Sprintf("id%d", i))
		}
		gs := make([]*weft.Goroutine, n)
		for i := range gs {
			gs[i] = weft.Go(func() {
				if ids[i].Rem(sym.Const(2)).Eq(sym.Const(0)).Eval() {
					m1.Lock()
					c1.Store(c1.Load() + 1)
					m1.Unlock()
				} else {
					m := &m1
					if twoLocks {
						m = &m2
					}
					m.Lock()
					c2.Store(c2.Load() + 1)
					m.Unlock()
				}
			})
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

func factorial(n int) int {
	if n <= 1 {
		return 1
	}
	return n * factorial(n-1)
}

func pow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}

func TestClosedForms(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if res := explore(t, counter1(n, false)); res.Complete != pow(2, n)*factorial(n) || res.Blocked != 0 {
				t.Errorf("Counter1(%d): %d complete, %d blocked; want %d, 0", n, res.Complete, res.Blocked, pow(2, n)*factorial(n))
			}
			if res := explore(t, counter1(n, true)); res.Complete != factorial(n+1) {
				t.Errorf("Counter2(%d): %d complete; want %d", n, res.Complete, factorial(n+1))
			}
			if n <= 3 {
				if res := explore(t, counter1(n, false), weft.WithExplicitDomain(0, 2)); res.Complete != pow(3, n)*factorial(n) || res.SolverCalls != 0 {
					t.Errorf("ExEn Counter1(%d): %d complete, %d solver calls; want %d, 0", n, res.Complete, res.SolverCalls, pow(3, n)*factorial(n))
				}
			}
		})
	}
}

func TestGoSemantics(t *testing.T) {
	res := explore(t, func() {
		x := sym.NewInt("x")
		sym.Assert(x.Add(sym.Const(1)).Gt(x), "x + 1 <= x for x = %v", x)
	})
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].Message, fmt.Sprint(int64(math.MaxInt64))) {
		t.Errorf("x+1 > x: bugs %v, want a failure at MaxInt64", res.Bugs)
	}
	res = explore(t, func() {
		x := sym.NewInt("x")
		_ = sym.Const(10).Div(x)
	})
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Panic || !strings.Contains(res.Bugs[0].Message, "divide by zero") {
		t.Errorf("10 / x: bugs %v, want the division by zero", res.Bugs)
	}
	res = explore(t, func() {
		x := sym.NewInt("x")
		_ = sym.Const(1).Shl(x)
	})
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].Message, "negative shift") {
		t.Errorf("1 << x: bugs %v, want the negative shift", res.Bugs)
	}
}

func TestChoose(t *testing.T) {
	seen := map[int]bool{}
	res := explore(t, func() {
		x := sym.NewInt("x")
		seen[sym.Choose(x, 4)] = true
	})
	if len(seen) != 4 || res.Complete != 4 || res.Blocked != 1 {
		t.Errorf("Choose(x, 4): indices %v, %d complete, %d blocked; want 4, 4, 1 (out of range)", seen, res.Complete, res.Blocked)
	}
}

func TestDataIndependentNeedsNoSolver(t *testing.T) {
	res := explore(t, func() {
		var c cell
		var m sync.Mutex
		gs := make([]*weft.Goroutine, 3)
		for i := range gs {
			gs[i] = weft.Go(func() {
				x := sym.NewInt("x")
				m.Lock()
				c.store(c.load().Add(x))
				m.Unlock()
			})
		}
		for _, g := range gs {
			g.Join()
		}
	})
	if res.SolverCalls != 0 || res.Complete != 6 {
		t.Errorf("%d solver calls, %d complete; want 0, 6", res.SolverCalls, res.Complete)
	}
}

// dataIndependent is a program whose goroutines sum inputs under a lock
// without branching on them: symbolic when sym is set, plain ints
// otherwise. Concolic exploration must cost it (almost) nothing.
func dataIndependent(n int, symbolic bool) func() {
	return func() {
		var m sync.Mutex
		var total weft.Var[sym.Int]
		var plain weft.Var[int64]
		gs := make([]*weft.Goroutine, n)
		for i := range gs {
			gs[i] = weft.Go(func() {
				m.Lock()
				if symbolic {
					total.Store(total.Load().Add(sym.NewInt("x")))
				} else {
					plain.Store(plain.Load() + int64(i))
				}
				m.Unlock()
			})
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// BenchmarkConcolicOverhead compares condpor on the same data-independent
// program with plain and with symbolic values (ConDPOR's overhead over
// DPOR); the figure of interest is the ratio of the two ns/op.
func BenchmarkConcolicOverhead(b *testing.B) {
	for _, symbolic := range []bool{false, true} {
		name := "ints"
		if symbolic {
			name = "symbolic"
		}
		b.Run(name, func(b *testing.B) {
			execs := 0
			for b.Loop() {
				res, err := weft.Explore(dataIndependent(5, symbolic))
				if err != nil || res.SolverCalls != 0 || res.Complete != 120 {
					b.Fatalf("%v %+v", err, res)
				}
				execs += res.Executions
			}
			b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
		})
	}
}

func TestSolvers(t *testing.T) {
	body := func() {
		x := sym.NewInt("x")
		sym.Assert(x.Mul(sym.Const(3)).Ne(sym.Const(21)), "x = %v", x)
	}
	for _, name := range []string{"builtin", "z3"} {
		t.Run(name, func(t *testing.T) {
			res, err := weft.Explore(body, weft.WithSolver(name))
			if err != nil {
				if name == "z3" && strings.Contains(err.Error(), "libz3") {
					t.Skipf("z3 backend unavailable: %v", err)
				}
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].Message, "x = 7") || res.SolverCalls == 0 {
				t.Errorf("bugs %v, %d solver calls; want x = 7 found by the solver", res.Bugs, res.SolverCalls)
			}
		})
	}
	if _, err := weft.Explore(body, weft.WithSolver("cvc5")); err == nil || !strings.Contains(err.Error(), "unknown solver") {
		t.Errorf("WithSolver(cvc5): %v", err)
	}
}
