package smt_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
	"weft.dev/weft/internal/sym/symtest"
)

var (
	diffN = flag.Int("smt.diff", 10000, "number of formulas in TestDifferential")
	long  = flag.Bool("smt.long", false, "run the slow variants of the tests")
)

const (
	minInt = math.MinInt64
	maxInt = math.MaxInt64
)

// solvers returns the backends available on this machine, by name.
func solvers(t testing.TB) map[string]smt.Solver {
	t.Helper()
	m := map[string]smt.Solver{}
	b, err := smt.New("builtin")
	if err != nil {
		t.Fatal(err)
	}
	m["builtin"] = b
	if z, err := smt.New("z3"); err != nil {
		t.Logf("skipping the z3 backend: %v", err)
	} else {
		m["z3"] = z
	}
	t.Cleanup(func() {
		for name, s := range m {
			if err := s.Close(); err != nil {
				t.Errorf("closing %s: %v", name, err)
			}
		}
	})
	return m
}

func z3Solver(t testing.TB) smt.Solver {
	t.Helper()
	z, err := smt.New("z3")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	t.Cleanup(func() { z.Close() })
	return z
}

func TestNew(t *testing.T) {
	for _, name := range []string{"", "builtin"} {
		s, err := smt.New(name)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		s.Close()
	}
	_, err := smt.New("cvc5")
	if err == nil || !strings.Contains(err.Error(), "builtin") || !strings.Contains(err.Error(), "z3") {
		t.Errorf("New(\"cvc5\") error = %v, want one listing builtin and z3", err)
	}
}

// model builds a model from alternating ids and values.
func model(kv ...int64) sym.Model {
	var m sym.Model
	for i := 0; i < len(kv); i += 2 {
		m.Set(int(kv[i]), kv[i+1])
	}
	return m
}

// TestFormulas checks results and least models of hand-written formulas
// covering every operation and its edge cases.
func TestFormulas(t *testing.T) {
	tab := sym.NewTable()
	x, y := tab.Var(0), tab.Var(1)
	k := tab.Const
	tests := []struct {
		name  string
		terms []sym.Term
		want  smt.Result
		model sym.Model
	}{
		{"empty", nil, smt.Sat, model()},
		{"true", []sym.Term{tab.True()}, smt.Sat, model()},
		{"false", []sym.Term{tab.True(), tab.False()}, smt.Unsat, model()},
		{"x>5", []sym.Term{tab.Gt(x, k(5))}, smt.Sat, model(0, 6)},
		{"x<-3", []sym.Term{tab.Lt(x, k(-3))}, smt.Sat, model(0, -4)},
		{"x!=0", []sym.Term{tab.Ne(x, k(0))}, smt.Sat, model(0, 1)},
		{"!(x<100)", []sym.Term{tab.BNot(tab.Lt(x, k(100)))}, smt.Sat, model(0, 100)},
		{"x<0", []sym.Term{tab.Lt(x, k(0))}, smt.Sat, model(0, -1)},
		{"x>=y, y>=10", []sym.Term{tab.Ge(x, y), tab.Ge(y, k(10))}, smt.Sat, model(0, 10, 1, 10)},
		{"x>5, x<3", []sym.Term{tab.Gt(x, k(5)), tab.Lt(x, k(3))}, smt.Unsat, model()},
		{"x<y, y<=min+1", []sym.Term{tab.Lt(x, y), tab.Le(y, k(minInt+1))}, smt.Sat, model(0, minInt, 1, minInt+1)},
		{"x==7||x==3", []sym.Term{tab.BOr(tab.Eq(x, k(7)), tab.Eq(x, k(3)))}, smt.Sat, model(0, 3)},
		{"x+1<x", []sym.Term{tab.Lt(tab.Add(x, k(1)), x)}, smt.Sat, model(0, maxInt)},
		{"x+y==5, x==max", []sym.Term{tab.Eq(tab.Add(x, y), k(5)), tab.Eq(x, k(maxInt))}, smt.Sat, model(0, maxInt, 1, minInt+6)},
		{"x-y==1, y==min", []sym.Term{tab.Eq(tab.Sub(x, y), k(1)), tab.Eq(y, k(minInt))}, smt.Sat, model(0, minInt+1, 1, minInt)},
		{"-x==x, x!=0", []sym.Term{tab.Eq(tab.Neg(x), x), tab.Ne(x, k(0))}, smt.Sat, model(0, minInt)},
		{"x*3==12", []sym.Term{tab.Eq(tab.Mul(x, k(3)), k(12))}, smt.Sat, model(0, 4)},
		{"x*2==7", []sym.Term{tab.Eq(tab.Mul(x, k(2)), k(7))}, smt.Unsat, model()},
		{"x*2==-2", []sym.Term{tab.Eq(tab.Mul(x, k(2)), k(-2))}, smt.Sat, model(0, maxInt)},
		{"x*y==143, x>1, y>1", []sym.Term{tab.Eq(tab.Mul(x, y), k(143)), tab.Gt(x, k(1)), tab.Gt(y, k(1))}, smt.Sat, model(0, 3, 1, 6148914691236517253)},
		{"x*x==3", []sym.Term{tab.Eq(tab.Mul(x, x), k(3))}, smt.Unsat, model()},
		{"x/3==5", []sym.Term{tab.Eq(tab.Div(x, k(3)), k(5))}, smt.Sat, model(0, 15)},
		{"x/3==-5", []sym.Term{tab.Eq(tab.Div(x, k(3)), k(-5))}, smt.Sat, model(0, -15)},
		{"x/y==min, y==-1", []sym.Term{tab.Eq(tab.Div(x, y), k(minInt)), tab.Eq(y, k(-1))}, smt.Sat, model(0, minInt, 1, -1)},
		{"x/0==1", []sym.Term{tab.Eq(tab.Div(x, y), k(1)), tab.Eq(y, k(0))}, smt.Sat, model(0, -1)},
		{"x/0==0", []sym.Term{tab.Eq(tab.Div(x, y), k(0)), tab.Eq(y, k(0))}, smt.Unsat, model()},
		{"5/y==-1", []sym.Term{tab.Eq(tab.Div(k(5), y), k(-1))}, smt.Sat, model()},
		{"x/y==7, x%y==3", []sym.Term{tab.Eq(tab.Div(x, y), k(7)), tab.Eq(tab.Rem(x, y), k(3))}, smt.Sat, model(0, 31, 1, 4)},
		{"x%5==-3", []sym.Term{tab.Eq(tab.Rem(x, k(5)), k(-3))}, smt.Sat, model(0, -3)},
		{"x%y==7, y==0", []sym.Term{tab.Eq(tab.Rem(x, y), k(7)), tab.Eq(y, k(0))}, smt.Sat, model(0, 7)},
		{"min%y!=0, y==-1", []sym.Term{tab.Ne(tab.Rem(k(minInt), y), k(0)), tab.Eq(y, k(-1))}, smt.Unsat, model()},
		{"x&12==8", []sym.Term{tab.Eq(tab.And(x, k(12)), k(8))}, smt.Sat, model(0, 8)},
		{"x|3==7", []sym.Term{tab.Eq(tab.Or(x, k(3)), k(7))}, smt.Sat, model(0, 4)},
		{"x^5==3", []sym.Term{tab.Eq(tab.Xor(x, k(5)), k(3))}, smt.Sat, model(0, 6)},
		{"x&y==-1", []sym.Term{tab.Eq(tab.And(x, y), k(-1))}, smt.Sat, model(0, -1, 1, -1)},
		{"x<<3==40", []sym.Term{tab.Eq(tab.Shl(x, k(3)), k(40))}, smt.Sat, model(0, 5)},
		{"1<<y==0", []sym.Term{tab.Eq(tab.Shl(k(1), y), k(0))}, smt.Sat, model(1, 64)},
		{"1<<y==min", []sym.Term{tab.Eq(tab.Shl(k(1), y), k(minInt))}, smt.Sat, model(1, 63)},
		{"x<<y==x, x!=0, y!=0", []sym.Term{tab.Eq(tab.Shl(x, y), x), tab.Ne(x, k(0)), tab.Ne(y, k(0))}, smt.Unsat, model()},
		{"x>>1==-3", []sym.Term{tab.Eq(tab.Shr(x, k(1)), k(-3))}, smt.Sat, model(0, -5)},
		{"min>>y==-1", []sym.Term{tab.Eq(tab.Shr(k(minInt), y), k(-1))}, smt.Sat, model(1, 63)},
		{"x>>y==-1, y<0", []sym.Term{tab.Eq(tab.Shr(x, y), k(-1)), tab.Lt(y, k(0))}, smt.Sat, model(0, -1, 1, -1)},
		{"ite(x>3,x,-x)==2", []sym.Term{tab.Eq(tab.Ite(tab.Gt(x, k(3)), x, tab.Neg(x)), k(2))}, smt.Sat, model(0, -2)},
		{"independent", []sym.Term{tab.Gt(x, k(5)), tab.Lt(y, k(-3))}, smt.Sat, model(0, 6, 1, -4)},
		{"independent unsat", []sym.Term{tab.Gt(x, k(5)), tab.Lt(y, k(-3)), tab.Gt(y, k(0))}, smt.Unsat, model()},
	}
	for name, s := range solvers(t) {
		for _, tc := range tests {
			r, m, err := s.Check(tab, tc.terms)
			if err != nil {
				t.Errorf("%s: %s: %v", name, tc.name, err)
				continue
			}
			if r != tc.want || r == smt.Sat && !m.Equal(tc.model) {
				t.Errorf("%s: %s: got %v %v, want %v %v", name, tc.name, r, m, tc.want, tc.model)
			}
			if r == smt.Sat {
				for _, term := range tc.terms {
					if !tab.EvalBool(term, m) {
						t.Errorf("%s: %s: model %v falsifies %s", name, tc.name, m, tab.String(term))
					}
				}
			}
		}
	}
}

// formula draws a random conjunction over 1 to 4 variables.
func formula(g *symtest.Gen, r *rand.Rand) []*symtest.Expr {
	g.Vars = 1 + r.IntN(4)
	conj := make([]*symtest.Expr, 1+r.IntN(3))
	for i := range conj {
		conj[i] = g.Bool(1 + r.IntN(2))
	}
	return conj
}

func build(tab *sym.Table, conj []*symtest.Expr) []sym.Term {
	terms := make([]sym.Term, len(conj))
	for i, e := range conj {
		terms[i] = e.Build(tab)
	}
	return terms
}

// satisfies checks m against both sym's evaluator and the reference
// semantics of the unsimplified formula.
func satisfies(tab *sym.Table, terms []sym.Term, conj []*symtest.Expr, m sym.Model) bool {
	for i, term := range terms {
		if !tab.EvalBool(term, m) || conj[i].EvalModel(m) != 1 {
			return false
		}
	}
	return true
}

// verdict is a backend's answer to one formula.
type verdict struct {
	res   smt.Result
	model sym.Model
	least bool // the backend proved the model least
}

// run decides the formulas numbered by which in a Table of its own, so
// that backends can run in parallel, and checks every model against both
// evaluators.
func run(t *testing.T, name string, formulas [][]*symtest.Expr, which func(int) bool) ([]verdict, time.Duration) {
	s, err := smt.New(name)
	if err != nil {
		t.Error(err)
		return nil, 0
	}
	defer s.Close()
	tab := sym.NewTable()
	out := make([]verdict, len(formulas))
	start := time.Now()
	for i, conj := range formulas {
		if !which(i) {
			continue
		}
		terms := build(tab, conj)
		before := s.Stats().NotLeast
		r, m, err := s.Check(tab, terms)
		if err != nil {
			t.Errorf("%s: formula %d %v: %v", name, i, conj, err)
			return nil, 0
		}
		if r == smt.Sat && !satisfies(tab, terms, conj, m) {
			t.Errorf("%s: formula %d %v: model %v does not satisfy it", name, i, conj, m)
		}
		out[i] = verdict{res: r, model: m, least: s.Stats().NotLeast == before}
	}
	return out, time.Since(start)
}

// TestDifferential checks the backends against each other and against
// evaluation on random formulas: they must agree on satisfiability, every
// model must satisfy its formula, and models that both backends proved
// least must be equal. The z3 backend is slower and checks every fifth
// formula unless -smt.long is given.
func TestDifferential(t *testing.T) {
	n := *diffN
	if testing.Short() {
		n /= 10
	}
	r := rand.New(rand.NewPCG(7, 11))
	g := &symtest.Gen{Src: symtest.Rand{R: r}, Linear: true}
	formulas := make([][]*symtest.Expr, n)
	for i := range formulas {
		formulas[i] = formula(g, r)
	}
	z3Every := 5
	if *long {
		z3Every = 1
	}
	var zs, bs []verdict
	var zt, bt time.Duration
	var wg sync.WaitGroup
	if _, err := smt.New("z3"); err != nil {
		t.Logf("checking the builtin backend alone: %v", err)
	} else {
		wg.Go(func() { zs, zt = run(t, "z3", formulas, func(i int) bool { return i%z3Every == 0 }) })
	}
	bs, bt = run(t, "builtin", formulas, func(int) bool { return true })
	wg.Wait()
	if t.Failed() {
		return
	}
	var sat, least, compared int
	for i, b := range bs {
		if b.res == smt.Sat {
			sat++
			if b.least {
				least++
			}
		}
		if b.res == smt.Unknown {
			t.Errorf("formula %d %v: builtin result unknown", i, formulas[i])
		}
		if zs == nil || i%z3Every != 0 {
			continue
		}
		z := zs[i]
		compared++
		if z.res != b.res || b.least && z.least && !z.model.Equal(b.model) {
			t.Errorf("formula %d %v:\nbuiltin: %v %v (least %v)\nz3:      %v %v (least %v)",
				i, formulas[i], b.res, b.model, b.least, z.res, z.model, z.least)
		}
	}
	t.Logf("%d formulas, %d sat (%d proved least), %d unsat; builtin %v; z3 compared on %d in %v",
		n, sat, least, n-sat, bt, compared, zt)
}

// hardLeast returns terms whose least model is a large number unrelated
// to their constants, so that the search runs out of budget: the low
// bits of x*3 are free, and its high bits must match a random pattern.
func hardLeast(tab *sym.Table) []sym.Term {
	x := tab.Var(0)
	mask := tab.Const(-1 << 20)
	return []sym.Term{tab.Eq(tab.And(tab.Mul(x, tab.Const(3)), mask), tab.Const(0x5a3c_e1f0_7b2d_4000&(-1<<20)))}
}

// TestDeterminism checks that a set of terms gets the same model in any
// order, with duplicates, after other queries, from a fresh solver, and,
// when the model is proved least, from a different Table.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"builtin", "z3"} {
		t.Run(name, func(t *testing.T) {
			if name == "z3" {
				z3Solver(t)
			}
			r := rand.New(rand.NewPCG(3, 5))
			g := &symtest.Gen{Src: symtest.Rand{R: r}, Linear: true}
			n := 200
			if name == "z3" {
				n = 40
			}
			tab := sym.NewTable()
			sets := [][]sym.Term{hardLeast(tab)}
			var conjs [][]*symtest.Expr
			for range n {
				conj := formula(g, r)
				conj = append(conj, formula(g, r)...)
				conjs = append(conjs, conj)
				sets = append(sets, build(tab, conj))
			}
			first := make([]verdict, len(sets))
			long, err := smt.New(name)
			if err != nil {
				t.Fatal(err)
			}
			defer long.Close()
			for i, set := range sets {
				before := long.Stats().NotLeast
				res, m, err := long.Check(tab, set)
				if err != nil {
					t.Fatal(err)
				}
				first[i] = verdict{res, m, long.Stats().NotLeast == before}
			}
			if first[0].least {
				t.Errorf("hardLeast was solved to a least model %v; the non-least path is untested", first[0].model)
			}
			// Shuffled, duplicated, and after all the other queries.
			for i, set := range sets {
				shuffled := append(slices.Clone(set), set[:len(set)/2]...)
				r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
				res, m, err := long.Check(tab, shuffled)
				if err != nil || res != first[i].res || !m.Equal(first[i].model) {
					t.Errorf("set %d: %v %v %v, first %v %v", i, res, m, err, first[i].res, first[i].model)
				}
			}
			// A fresh solver, queries in reverse order.
			fresh, err := smt.New(name)
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			for i := len(sets) - 1; i >= 0; i-- {
				res, m, err := fresh.Check(tab, sets[i])
				if err != nil || res != first[i].res || !m.Equal(first[i].model) {
					t.Errorf("set %d, fresh solver: %v %v %v, first %v %v", i, res, m, err, first[i].res, first[i].model)
				}
			}
			// A Table whose terms have other numbers: least models are a
			// function of the formula's meaning.
			other := sym.NewTable()
			other.Var(7)
			other.Const(12345)
			for i := len(conjs) - 1; i >= 0; i-- {
				res, m, err := fresh.Check(other, build(other, conjs[i]))
				if err != nil || res != first[i+1].res || first[i+1].least && !m.Equal(first[i+1].model) {
					t.Errorf("set %d, other table: %v %v %v, first %v %v", i+1, res, m, err, first[i+1].res, first[i+1].model)
				}
			}
		})
	}
}

func TestIncremental(t *testing.T) {
	for name, s := range solvers(t) {
		tab := sym.NewTable()
		x, y := tab.Var(0), tab.Var(1)
		k := tab.Const
		steps := []struct {
			op    string // "push", "pop" or "assert"
			term  sym.Term
			want  smt.Result
			model sym.Model
		}{
			{op: "check", want: smt.Sat, model: model()},
			{op: "assert", term: tab.Gt(x, k(10)), want: smt.Sat, model: model(0, 11)},
			{op: "push", want: smt.Sat, model: model(0, 11)},
			{op: "assert", term: tab.Lt(y, x), want: smt.Sat, model: model(0, 11)},
			{op: "assert", term: tab.Gt(y, k(20)), want: smt.Sat, model: model(0, 22, 1, 21)},
			{op: "push", want: smt.Sat, model: model(0, 22, 1, 21)},
			{op: "assert", term: tab.Lt(x, k(15)), want: smt.Unsat},
			{op: "pop", want: smt.Sat, model: model(0, 22, 1, 21)},
			{op: "pop", want: smt.Sat, model: model(0, 11)},
			{op: "assert", term: tab.Eq(tab.Rem(x, k(7)), k(0)), want: smt.Sat, model: model(0, 14)},
		}
		for i, st := range steps {
			switch st.op {
			case "push":
				s.Push()
			case "pop":
				s.Pop()
			case "assert":
				s.Assert(tab, st.term)
			}
			r, m, err := s.CheckAssert()
			if err != nil || r != st.want || r == smt.Sat && !m.Equal(st.model) {
				t.Errorf("%s: step %d (%s): %v %v %v, want %v %v", name, i, st.op, r, m, err, st.want, st.model)
			}
		}
		for what, f := range map[string]func(){
			"Pop without Push":     func() { s.Pop() },
			"Assert of Int":        func() { s.Assert(tab, x) },
			"Assert of two Tables": func() { s.Assert(sym.NewTable(), tab.True()) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: %s did not panic", name, what)
					}
				}()
				f()
			}()
		}
	}
}

func TestCacheAndSplit(t *testing.T) {
	s, err := smt.New("builtin")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := sym.NewTable()
	x, y, z := tab.Var(0), tab.Var(1), tab.Var(2)
	px, py := tab.Gt(x, tab.Const(5)), tab.Lt(y, tab.Const(-3))
	pxz := tab.Eq(tab.Add(x, z), tab.Const(100))
	tests := []struct {
		terms       []sym.Term
		calls, hits int // increments
		model       sym.Model
	}{
		{[]sym.Term{px, py}, 2, 0, model(0, 6, 1, -4)},
		{[]sym.Term{py, px}, 0, 2, model(0, 6, 1, -4)},
		{[]sym.Term{px, py, pxz}, 1, 1, model(0, 6, 1, -4, 2, 94)},
		{[]sym.Term{tab.True()}, 0, 0, model()},
		{[]sym.Term{px, tab.False()}, 0, 0, model()},
		{[]sym.Term{tab.Eq(x, x)}, 0, 0, model()},
	}
	for i, tc := range tests {
		before := s.Stats()
		_, m, err := s.Check(tab, tc.terms)
		after := s.Stats()
		if err != nil || !m.Equal(tc.model) {
			t.Errorf("query %d: %v %v, want %v", i, m, err, tc.model)
		}
		if calls, hits := after.Calls-before.Calls, after.CacheHits-before.CacheHits; calls != tc.calls || hits != tc.hits {
			t.Errorf("query %d: %d backend calls and %d cache hits, want %d and %d", i, calls, hits, tc.calls, tc.hits)
		}
		if after.Queries != before.Queries+1 {
			t.Errorf("query %d: Queries went from %d to %d", i, before.Queries, after.Queries)
		}
	}
	// Term numbers are per Table, so another Table must not hit the cache.
	other := sym.NewTable()
	before := s.Stats()
	if _, m, _ := s.Check(other, []sym.Term{other.Lt(other.Var(3), other.Const(0))}); !m.Equal(model(3, -1)) || s.Stats().CacheHits != before.CacheHits {
		t.Errorf("other Table: model %v, cache hits %d -> %d", m, before.CacheHits, s.Stats().CacheHits)
	}
}

func TestErrors(t *testing.T) {
	s, err := smt.New("builtin")
	if err != nil {
		t.Fatal(err)
	}
	tab := sym.NewTable()
	if _, _, err := s.Check(tab, []sym.Term{tab.Var(0)}); err == nil {
		t.Error("Check of an Int term succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Check(tab, []sym.Term{tab.True()}); err == nil {
		t.Error("Check after Close succeeded")
	}
}

// smallRange bounds the two variables of FuzzBuiltin's formulas to
// [-smallRange, smallRange-1].
const smallRange = 4

// FuzzBuiltin decides formulas from the fuzz input with variables
// restricted to a small range, and checks the answer by enumeration: a
// model must satisfy the formula, a model proved least must be the least,
// and unsat must mean that no assignment satisfies it.
func FuzzBuiltin(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{5, 8, 4, 0, 0, 9, 1, 1, 7, 0, 3})
	f.Add([]byte("\x02\x04\x06\x00\x01\x03\x05\x07\x0b\x11\x13"))
	f.Add([]byte("\x08\x09\x0a\x02\x02\x00\x01\x05\x00\x03\x00\x07\x09"))
	f.Add([]byte("\x01\x07\x0d\x03\x00\x02\x01\x00\x08\x0e\x04"))
	s, err := smt.New("builtin")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &symtest.Gen{Src: &symtest.Bytes{Data: data}, Vars: 2}
		conj := []*symtest.Expr{g.Bool(2), g.Bool(2)}
		tab := sym.NewTable()
		terms := build(tab, conj)
		for id := range 2 {
			x := tab.Var(id)
			terms = append(terms, tab.Ge(x, tab.Const(-smallRange)), tab.Lt(x, tab.Const(smallRange)))
		}
		before := s.Stats().NotLeast
		res, m, err := s.Check(tab, terms)
		if err != nil {
			t.Fatal(err)
		}
		// Enumerate assignments in the order of least models: variable 0
		// most significant, values 0, 1, ..., -1, -2, ...
		values := make([]int64, 0, 2*smallRange)
		for v := range int64(smallRange) {
			values = append(values, v)
		}
		for v := int64(-1); v >= -smallRange; v-- {
			values = append(values, v)
		}
		var least sym.Model
		found := false
		for _, x0 := range values {
			for _, x1 := range values {
				a := model(0, x0, 1, x1)
				if !found && satisfies(tab, terms[:len(conj)], conj, a) {
					least, found = a, true
				}
			}
		}
		switch res {
		case smt.Unsat:
			if found {
				t.Fatalf("%v: unsat, but %v satisfies it", conj, least)
			}
		case smt.Sat:
			for _, term := range terms {
				if !tab.EvalBool(term, m) {
					t.Fatalf("%v: model %v falsifies %s", conj, m, tab.String(term))
				}
			}
			if s.Stats().NotLeast == before && !m.Equal(least) {
				t.Fatalf("%v: model %v, but the least model is %v", conj, m, least)
			}
		default:
			t.Fatalf("%v: result %v", conj, res)
		}
	})
}

// TestFirstModels checks that first models satisfy their query and depend
// only on its set of terms.
func TestFirstModels(t *testing.T) {
	s, err := smt.NewWith("builtin", smt.First)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := sym.NewTable()
	x, y := tab.Var(0), tab.Var(1)
	q := []sym.Term{tab.Lt(tab.Add(x, y), tab.Const(100)), tab.Gt(x, tab.Const(7)), tab.Ne(y, tab.Const(0))}
	_, m1, err := s.Check(tab, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range q {
		if !tab.EvalBool(c, m1) {
			t.Fatalf("model %v does not satisfy %s", m1, tab.String(c))
		}
	}
	// Other queries in between, then the same set in another order, on a
	// fresh solver too: the same model.
	s.Check(tab, []sym.Term{tab.Gt(x, tab.Const(1000))})
	fresh, _ := smt.NewWith("builtin", smt.First)
	defer fresh.Close()
	for _, solver := range []smt.Solver{s, fresh} {
		_, m2, _ := solver.Check(tab, []sym.Term{q[2], q[0], q[1], q[0]})
		if !m1.Equal(m2) {
			t.Errorf("first models differ: %v and %v", m1, m2)
		}
	}
	if st := s.Stats(); st.Solves > 3 {
		t.Errorf("%d checks for first models, want one per query", st.Solves)
	}
}

// orderFormula draws a conjunction of comparisons between 1 to 4
// variables and small constants: the order fragment, which First solvers
// decide without the backend.
func orderFormula(tab *sym.Table, r *rand.Rand) []sym.Term {
	leaf := func(nvars int) sym.Term {
		if r.IntN(3) == 0 {
			return tab.Const(int64(r.IntN(7) - 3))
		}
		return tab.Var(r.IntN(nvars))
	}
	nvars := 1 + r.IntN(4)
	var terms []sym.Term
	for range 1 + r.IntN(6) {
		a, b := leaf(nvars), leaf(nvars)
		var t sym.Term
		switch r.IntN(5) {
		case 0:
			t = tab.Eq(a, b)
		case 1:
			t = tab.Ne(a, b)
		case 2:
			t = tab.Lt(a, b)
		case 3:
			t = tab.Le(a, b)
		default:
			t = tab.BNot(tab.Lt(a, b))
		}
		// Some disjunctions, as an out-of-range value gives, split by
		// the fragment into cases.
		if n := len(terms); n > 0 && r.IntN(3) == 0 {
			if r.IntN(2) == 0 {
				terms[n-1] = tab.BOr(terms[n-1], t)
			} else {
				terms[n-1] = tab.BNot(tab.BAnd(terms[n-1], t))
			}
			continue
		}
		terms = append(terms, t)
	}
	return terms
}

// TestOrderFragment checks the order fragment's decision procedure against
// the builtin backend: same satisfiability, models that satisfy, and the
// same model for the same set.
func TestOrderFragment(t *testing.T) {
	fast, err := smt.NewWith("builtin", smt.First)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	ref, _ := smt.New("builtin")
	defer ref.Close()
	tab := sym.NewTable()
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 3000 {
		terms := orderFormula(tab, r)
		got, m, err := fast.Check(tab, terms)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := ref.Check(tab, terms)
		if got != want {
			t.Fatalf("formula %d %v: order fragment says %v, the backend %v", i, show(tab, terms), got, want)
		}
		if got != smt.Sat {
			continue
		}
		for _, c := range terms {
			if !tab.EvalBool(c, m) {
				t.Fatalf("formula %d %v: model %v falsifies %s", i, show(tab, terms), m, tab.String(c))
			}
		}
		rev := slices.Clone(terms)
		slices.Reverse(rev)
		if _, again, _ := fast.Check(tab, rev); !m.Equal(again) {
			t.Fatalf("formula %d: models %v and %v for the same set", i, m, again)
		}
	}
	if st := fast.Stats(); st.Ordered == 0 {
		t.Error("no part was decided by the order fragment")
	}
}

func show(tab *sym.Table, terms []sym.Term) []string {
	var out []string
	for _, t := range terms {
		out = append(out, tab.String(t))
	}
	return out
}
