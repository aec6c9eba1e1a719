package smt_test

import (
	"testing"

	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// Each benchmark iteration asks a query the solver has not seen, by
// varying a constant, so that it measures the backend rather than the
// cache, except BenchmarkCacheHit.

// typical is a concolic path condition: a few comparisons over three
// variables, with a branch condition depending on c.
func typical(tab *sym.Table, c int64) []sym.Term {
	x, y, z := tab.Var(0), tab.Var(1), tab.Var(2)
	return []sym.Term{
		tab.Gt(x, tab.Const(c%1000)),
		tab.Lt(y, tab.Add(x, tab.Const(5))),
		tab.Ne(y, tab.Const(7)),
		tab.Le(tab.Sub(z, x), tab.Const(100)),
		tab.Ge(z, y),
	}
}

// mulDiv mixes multiplication and division by constants with a product of
// two variables.
func mulDiv(tab *sym.Table, c int64) []sym.Term {
	x, y := tab.Var(0), tab.Var(1)
	return []sym.Term{
		tab.Eq(tab.Add(tab.Mul(x, tab.Const(7)), tab.Div(y, tab.Const(3))), tab.Const(1000+c%1000)),
		tab.Gt(x, tab.Const(0)),
		tab.Gt(y, tab.Const(0)),
		tab.Ne(tab.Rem(tab.Mul(x, y), tab.Const(10)), tab.Const(0)),
	}
}

func bench(b *testing.B, name string, query func(*sym.Table, int64) []sym.Term, vary bool) {
	s, err := smt.New(name)
	if err != nil {
		b.Skipf("skipping: %v", err)
	}
	defer s.Close()
	tab := sym.NewTable()
	fixed := query(tab, 0)
	b.ResetTimer()
	for i := range b.N {
		terms := fixed
		if vary {
			terms = query(tab, int64(i))
		}
		if r, _, err := s.Check(tab, terms); err != nil || r != smt.Sat {
			b.Fatalf("%v %v", r, err)
		}
	}
	st := s.Stats()
	b.ReportMetric(float64(st.Solves)/float64(b.N), "checks/op")
}

func BenchmarkTypical(b *testing.B) {
	for _, name := range []string{"builtin", "z3"} {
		b.Run(name, func(b *testing.B) { bench(b, name, typical, true) })
	}
}

func BenchmarkMulDiv(b *testing.B) {
	for _, name := range []string{"builtin", "z3"} {
		b.Run(name, func(b *testing.B) { bench(b, name, mulDiv, true) })
	}
}

func BenchmarkCacheHit(b *testing.B) {
	bench(b, "builtin", typical, false)
}
