package ic_test

import (
	"math"
	"testing"

	"weft.dev/weft/internal/ic"
	"weft.dev/weft/internal/smt"
	isym "weft.dev/weft/internal/sym"
	"weft.dev/weft/sym"
)

// The effects of the paper's Fig. 1 over the state (x, z), which Example 6
// composes: q is if z >= 0 { z = x }, r is x++; z++, and p is x++.
var (
	p = func(s, _ []sym.Int) []sym.Int {
		s[0] = s[0].Add(sym.Const(1))
		return nil
	}
	q = func(s, _ []sym.Int) []sym.Int {
		if s[1].Ge(sym.Const(0)).Eval() {
			s[1] = s[0]
		}
		return nil
	}
	r = func(s, _ []sym.Int) []sym.Int {
		s[0] = s[0].Add(sym.Const(1))
		s[1] = s[1].Add(sym.Const(1))
		return nil
	}
)

func effects(fs ...func(s, a []sym.Int) []sym.Int) []ic.Effect {
	var es []ic.Effect
	for _, f := range fs {
		es = append(es, ic.Effect{F: f})
	}
	return es
}

// synthesizer returns a synthesizer that the test closes at its end.
func synthesizer(t *testing.T) *ic.Synthesizer {
	t.Helper()
	z, err := ic.NewSynthesizer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { z.Close() })
	return z
}

// equivalent reports whether the Bool terms a and b of z's table agree on
// every state, under the assumptions.
func equivalent(t *testing.T, z *ic.Synthesizer, a, b isym.Term, assume ...isym.Term) bool {
	t.Helper()
	tab := z.Table()
	s, err := smt.New("builtin")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	differ := tab.BOr(tab.BAnd(a, tab.BNot(b)), tab.BAnd(b, tab.BNot(a)))
	res, m, err := s.Check(tab, append(assume, differ))
	if err != nil {
		t.Fatal(err)
	}
	if res == smt.Sat {
		t.Logf("they differ at %v", m)
	}
	return res == smt.Unsat
}

// TestExample6 checks the IC of q and r against the paper's Example 6,
// (z >= 0) ∨ (z = x) ∨ (z < -1), which holds for mathematical integers.
// With Go's int64, z = MaxInt64 differs: r makes z wrap to MinInt64, so
// that q then keeps it, and the orders agree only when x = z there.
func TestExample6(t *testing.T) {
	syn := synthesizer(t)
	a, err := syn.Analyze(2, effects(q, r))
	if err != nil {
		t.Fatal(err)
	}
	pair := a.Pair(0, 1)
	if pair.Kind == ic.Never || pair.Kind == ic.Always {
		t.Fatalf("I(q, r) is %v, want a condition", pair.Kind)
	}
	tab := syn.Table()
	x, z := tab.Var(0), tab.Var(1)
	paper := tab.BOr(tab.BOr(tab.Ge(z, tab.Const(0)), tab.Eq(z, x)), tab.Lt(z, tab.Const(-1)))
	noWrap := tab.Lt(z, tab.Const(math.MaxInt64))
	if !equivalent(t, syn, pair.IC, paper, noWrap) {
		t.Error("I(q, r) differs from the paper's below z = MaxInt64")
	}
	if equivalent(t, syn, pair.IC, paper) {
		t.Error("I(q, r) is the paper's at z = MaxInt64 too, where int64 wraps")
	}
	exact := tab.BOr(tab.BOr(tab.BAnd(tab.Ge(z, tab.Const(0)), noWrap), tab.Eq(z, x)), tab.Lt(z, tab.Const(-1)))
	if !equivalent(t, syn, pair.IC, exact) {
		t.Error("I(q, r) differs from the paper's with z = MaxInt64 excepted")
	}
	if back := a.Pair(1, 0); !equivalent(t, syn, back.IC, pair.IC) {
		t.Error("I(r, q) differs from I(q, r)")
	}
	// p writes x, which I(q, r) reads: from z = x = -1, where it holds,
	// p makes x = 0 and it fails. With p declared, it is not uniform (the
	// paper's Example 4).
	withP, err := syn.Analyze(2, effects(p, q, r))
	if err != nil {
		t.Fatal(err)
	}
	if k := withP.Pair(1, 2).Kind; k != ic.Unproven {
		t.Errorf("I(q, r) with p declared is %v, want unproven", k)
	}
	if k := withP.Pair(0, 2).Kind; k != ic.Always {
		t.Errorf("I(p, r) is %v, want always", k)
	}
	if !withP.Commute(0, 2, []int64{7, 9}, nil, nil) {
		t.Error("p and r do not commute")
	}
	if withP.Commute(1, 2, []int64{-2, -2}, nil, nil) {
		t.Error("q and r, whose IC is not uniform, commute")
	}
}

// TestKinds checks the classification on pairs that always, never, and
// uniformly conditionally commute.
func TestKinds(t *testing.T) {
	syn := synthesizer(t)
	inc := func(s, _ []sym.Int) []sym.Int {
		s[0] = s[0].Add(sym.Const(1))
		return nil
	}
	set1 := func(s, _ []sym.Int) []sym.Int {
		s[0] = sym.Const(1)
		return nil
	}
	set2 := func(s, _ []sym.Int) []sym.Int {
		s[0] = sym.Const(2)
		return nil
	}
	// A register that the first set resolves: s[0] tells whether it is
	// resolved, s[1] holds the value; the section returns the value.
	resolve := func(s, a []sym.Int) []sym.Int {
		if s[0].Eq(sym.Const(0)).Eval() {
			s[0], s[1] = sym.Const(1), a[0]
		}
		return []sym.Int{s[1]}
	}
	a, err := syn.Analyze(2, []ic.Effect{{F: inc}, {F: set1}, {F: set2}, {F: resolve, Args: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j int
		want ic.Kind
	}{
		{0, 0, ic.Always}, // two increments
		{1, 1, ic.Always}, // two stores of one value
		{1, 2, ic.Never},  // x = 1 and x = 2
		{2, 1, ic.Never},
		{0, 1, ic.Never},
		{3, 3, ic.Unproven}, // set1 and set2 unresolve it
	} {
		if got := a.Pair(c.i, c.j).Kind; got != c.want {
			t.Errorf("pair (%d, %d) is %v, want %v", c.i, c.j, got, c.want)
		}
	}

	// A counter that saturates at 3 and says whether it was full: two
	// increments agree from c <= 1 and from c >= 3, but only the latter
	// stays true (an increment from 1 leaves 2).
	saturate := func(s, _ []sym.Int) []sym.Int {
		if s[0].Lt(sym.Const(3)).Eval() {
			s[0] = s[0].Add(sym.Const(1))
			return []sym.Int{sym.Const(0)}
		}
		return []sym.Int{sym.Const(1)}
	}
	sat, err := syn.Analyze(1, []ic.Effect{{F: saturate}})
	if err != nil {
		t.Fatal(err)
	}
	if k := sat.Pair(0, 0).Kind; k != ic.When {
		t.Fatalf("two saturating increments are %v, want when", k)
	}
	tab := syn.Table()
	if c := tab.Var(0); !equivalent(t, syn, sat.Pair(0, 0).IC, tab.Ge(c, tab.Const(3))) {
		t.Error("the IC of two saturating increments is not c >= 3")
	}
	for c, want := range map[int64]bool{0: false, 1: false, 2: false, 3: true, 7: true} {
		if got := sat.Commute(0, 0, []int64{c}, nil, nil); got != want {
			t.Errorf("saturating increments from %d: commute %v, want %v", c, got, want)
		}
	}

	alone, err := syn.Analyze(2, []ic.Effect{{F: resolve, Args: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if k := alone.Pair(0, 0).Kind; k != ic.When {
		t.Fatalf("two resolves are %v, want when", k)
	}
	for _, c := range []struct {
		s    []int64
		x, y int64
		want bool
	}{
		{[]int64{0, 0}, 1, 2, false}, // the first wins
		{[]int64{0, 0}, 3, 3, true},  // the same value either way
		{[]int64{1, 5}, 1, 2, true},  // resolved: both read 5
	} {
		if got := alone.Commute(0, 0, c.s, []int64{c.x}, []int64{c.y}); got != c.want {
			t.Errorf("resolve(%d) and resolve(%d) from %v: commute %v, want %v", c.x, c.y, c.s, got, c.want)
		}
	}
}

// TestCached checks that analysing the same effects again, as every
// execution of a program does, returns the analysis made the first time.
func TestCached(t *testing.T) {
	syn := synthesizer(t)
	a, _ := syn.Analyze(2, effects(q, r))
	b, _ := syn.Analyze(2, effects(q, r))
	c, _ := syn.Analyze(2, effects(r, q))
	if a != b || a == c {
		t.Errorf("analyses %p, %p (same effects), %p (other order): want the first two equal only", a, b, c)
	}
}

// TestMisuse checks that an effect that needs a check (a new input), or
// that has too many paths, is not analysed: its pairs never commute.
func TestMisuse(t *testing.T) {
	syn := synthesizer(t)
	bad := func(s, _ []sym.Int) []sym.Int {
		s[0] = sym.NewInt("x")
		return nil
	}
	a, err := syn.Analyze(1, effects(bad, bad))
	if err != nil {
		t.Fatal(err)
	}
	if k := a.Pair(0, 1).Kind; k != ic.Never {
		t.Errorf("pair of effects that make inputs is %v, want never", k)
	}
	// A loop on a symbolic bound has paths of every length: it is not
	// analysed, and the analysis ends.
	count := func(s, _ []sym.Int) []sym.Int {
		for s[0].Gt(sym.Const(0)).Eval() {
			s[0] = s[0].Sub(sym.Const(1))
		}
		return nil
	}
	loop, err := syn.Analyze(1, effects(count, count))
	if err != nil {
		t.Fatal(err)
	}
	if k := loop.Pair(0, 1).Kind; k != ic.Never {
		t.Errorf("pair of loops is %v, want never", k)
	}
}
