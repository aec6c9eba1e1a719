package smt

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-air/gini/z"

	"weft.dev/weft/internal/sym"
)

// TestCircuitEdges evaluates every circuit at edge values. For each
// divisor-side value b, one instance holds x_{i+2} == e_i for expressions
// over the variables x0 and x1 and over x0 and the constant b; each a is
// then tried by assuming the bits of x0 and x1, and the outputs must match
// evaluation.
func TestCircuitEdges(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -3, 4, -8, 7, 10, 63, 64, 1 << 62, math.MinInt64, math.MaxInt64, math.MinInt64 + 1}
	ops := []func(tab *sym.Table, a, b sym.Term) sym.Term{
		(*sym.Table).Add, (*sym.Table).Sub, (*sym.Table).Mul, (*sym.Table).Div, (*sym.Table).Rem,
		(*sym.Table).And, (*sym.Table).Or, (*sym.Table).Xor, (*sym.Table).Shl, (*sym.Table).Shr,
		func(tab *sym.Table, a, _ sym.Term) sym.Term { return tab.Neg(a) },
		func(tab *sym.Table, a, b sym.Term) sym.Term { return tab.Ite(tab.Lt(a, b), a, b) },
		func(tab *sym.Table, a, b sym.Term) sym.Term { return tab.Ite(tab.Le(a, b), a, b) },
		func(tab *sym.Table, a, b sym.Term) sym.Term { return tab.Ite(tab.Eq(a, b), a, b) },
	}
	tab := sym.NewTable()
	x0, x1 := tab.Var(0), tab.Var(1)
	for _, b := range edges {
		var exprs, terms []sym.Term
		for _, op := range ops {
			exprs = append(exprs, op(tab, x0, x1), op(tab, x0, tab.Const(b)))
		}
		vars := []int{0, 1}
		for i, e := range exprs {
			terms = append(terms, tab.Eq(tab.Var(i+2), e))
			vars = append(vars, i+2)
		}
		s, err := newGiniSession(tab, terms, vars)
		if err != nil || s == nil {
			t.Fatalf("building: %v", err)
		}
		for _, a := range edges {
			for i, v := range []int64{a, b} {
				for bit, m := range s.vars[i] {
					if v>>bit&1 == 0 {
						m = m.Not()
					}
					s.g.Assume(m)
				}
			}
			if s.g.Solve() != 1 {
				t.Errorf("x0=%d, x1=%d: unsat", a, b)
				continue
			}
			for i, e := range exprs {
				got := wordValue(s, s.vars[i+2])
				if want := tab.Eval(e, modelOf(a, b)); got != want {
					t.Errorf("x0=%d, x1=%d: %s = %d, want %d", a, b, tab.String(e), got, want)
				}
			}
		}
	}
}

func modelOf(x0, x1 int64) sym.Model {
	var m sym.Model
	m.Set(0, x0)
	m.Set(1, x1)
	return m
}

func wordValue(s *giniSession, w []z.Lit) int64 {
	var v int64
	for bit, m := range w {
		if s.g.Value(m) {
			v |= 1 << bit
		}
	}
	return v
}

func TestOrderKey(t *testing.T) {
	// In the order of least models.
	values := []int64{0, 1, 2, 1000, math.MaxInt64 - 1, math.MaxInt64, -1, -2, -1000, math.MinInt64 + 1, math.MinInt64}
	for i := 1; i < len(values); i++ {
		if orderKey(values[i-1]) >= orderKey(values[i]) {
			t.Errorf("key(%d) = %d is not below key(%d) = %d", values[i-1], orderKey(values[i-1]), values[i], orderKey(values[i]))
		}
	}
	for _, k := range []uint64{1, 2, 1000, 1 << 63, 1<<63 + 1, 1<<63 + 1000, math.MaxUint64} {
		lo, hi := keysBelow(k)
		for _, v := range values {
			if in := lo <= v && v <= hi; in != (orderKey(v) < k) {
				t.Errorf("keysBelow(%d) = [%d, %d] disagrees with key(%d) = %d", k, lo, hi, v, orderKey(v))
			}
		}
	}
}

func TestLRU(t *testing.T) {
	c := newLRU(2)
	c.put("a", entry{res: Sat})
	c.put("b", entry{res: Unsat})
	if _, ok := c.get("a"); !ok {
		t.Fatal("a missing")
	}
	c.put("c", entry{res: Sat}) // evicts b, the least recently used
	if _, ok := c.get("b"); ok {
		t.Error("b survived eviction")
	}
	if e, ok := c.get("a"); !ok || e.res != Sat {
		t.Error("a was evicted")
	}
	if c.len() != 2 {
		t.Errorf("len = %d, want 2", c.len())
	}
	c.clear()
	if _, ok := c.get("a"); ok || c.len() != 0 {
		t.Error("clear left entries")
	}
}

func TestSplit(t *testing.T) {
	tab := sym.NewTable()
	x := func(i int) sym.Term { return tab.Var(i) }
	k := tab.Const(0)
	terms := []sym.Term{
		tab.Lt(x(0), k),
		tab.Lt(x(5), x(3)),
		tab.Lt(x(1), x(2)),
		tab.Lt(x(3), x(4)),
		tab.Lt(x(2), x(0)),
		tab.Lt(x(6), k),
	}
	slices.Sort(terms)
	var got []string
	for _, p := range split(tab, terms) {
		if !slices.IsSorted(p.terms) {
			t.Errorf("part %v is not sorted", p.terms)
		}
		var b strings.Builder
		for _, v := range p.vars {
			b.WriteByte(byte('0' + v))
		}
		got = append(got, b.String())
	}
	slices.Sort(got)
	if want := []string{"012", "345", "6"}; !slices.Equal(got, want) {
		t.Errorf("parts have variables %v, want %v", got, want)
	}
}

func TestZ3NotFound(t *testing.T) {
	_, err := openZ3([]string{"libz3-does-not-exist.so"})
	if err == nil || !strings.Contains(err.Error(), "libz3 not found") || !strings.Contains(err.Error(), "apt-get install libz3-dev") {
		t.Errorf("error = %v, want one saying libz3 was not found and how to install it", err)
	}
}

// TestZ3ErrorHandler makes Z3 report an error, which its default handler
// would answer by exiting the process.
func TestZ3ErrorHandler(t *testing.T) {
	api, err := loadZ3()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx, err := api.newContext()
	if err != nil {
		t.Fatal(err)
	}
	defer api.deleteContext(ctx)
	p := &z3Part{api: api, ctx: ctx}
	p.bv64 = api.mkBvSort(ctx, 64)
	sum := p.op(sym.OpAdd, p.constant(1), api.mkTrue(ctx)) // a sort error
	if err := p.failed("add", sum); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("error = %v, want a Z3 error", err)
	}
	if err := p.failed("nothing"); err != nil {
		t.Errorf("the error was not cleared: %v", err)
	}
}
