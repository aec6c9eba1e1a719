package sym_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"weft.dev/weft/internal/sym"
	"weft.dev/weft/internal/sym/symtest"
)

const (
	minInt = math.MinInt64
	maxInt = math.MaxInt64
)

type binOp func(t *sym.Table, a, b sym.Term) sym.Term

var binOps = map[string]binOp{
	"Add": (*sym.Table).Add, "Sub": (*sym.Table).Sub, "Mul": (*sym.Table).Mul,
	"Div": (*sym.Table).Div, "Rem": (*sym.Table).Rem, "And": (*sym.Table).And,
	"Or": (*sym.Table).Or, "Xor": (*sym.Table).Xor, "Shl": (*sym.Table).Shl,
	"Shr": (*sym.Table).Shr, "Eq": (*sym.Table).Eq, "Ne": (*sym.Table).Ne,
	"Lt": (*sym.Table).Lt, "Le": (*sym.Table).Le, "Gt": (*sym.Table).Gt,
	"Ge":  (*sym.Table).Ge,
	"Neg": func(t *sym.Table, a, _ sym.Term) sym.Term { return t.Neg(a) },
}

// TestOpEdgeCases checks every operation at its edge values, both folded
// (constant operands) and evaluated (variable operands, and each mix).
func TestOpEdgeCases(t *testing.T) {
	tests := []struct {
		op      string
		a, b    int64
		want    int64 // 1 and 0 for Bool results
		comment string
	}{
		{"Add", maxInt, 1, minInt, "wraps"},
		{"Add", minInt, -1, maxInt, "wraps"},
		{"Add", -1, 1, 0, ""},
		{"Sub", minInt, 1, maxInt, "wraps"},
		{"Sub", 0, minInt, minInt, "wraps"},
		{"Sub", 3, 5, -2, ""},
		{"Mul", maxInt, 2, -2, "wraps"},
		{"Mul", minInt, -1, minInt, "wraps"},
		{"Mul", 1 << 32, 1 << 32, 0, "low 64 bits"},
		{"Mul", -3, 7, -21, ""},
		{"Mul", 0x100000001, 0x100000001, 0x200000001, "low 64 bits"},
		{"Neg", minInt, 0, minInt, "wraps"},
		{"Neg", 5, 0, -5, ""},
		{"Neg", 0, 0, 0, ""},
		{"Div", 7, 2, 3, ""},
		{"Div", -7, 2, -3, "truncates toward zero"},
		{"Div", 7, -2, -3, "truncates toward zero"},
		{"Div", -7, -2, 3, ""},
		{"Div", minInt, -1, minInt, "overflow as in Go"},
		{"Div", minInt, 1, minInt, ""},
		{"Div", minInt, minInt, 1, ""},
		{"Div", maxInt, minInt, 0, ""},
		{"Div", 5, 0, -1, "bvsdiv by zero, non-negative dividend"},
		{"Div", 0, 0, -1, "bvsdiv by zero, non-negative dividend"},
		{"Div", -5, 0, 1, "bvsdiv by zero, negative dividend"},
		{"Div", minInt, 0, 1, "bvsdiv by zero, negative dividend"},
		{"Rem", 7, 2, 1, ""},
		{"Rem", -7, 2, -1, "sign of the dividend"},
		{"Rem", 7, -2, 1, "sign of the dividend"},
		{"Rem", -7, -2, -1, ""},
		{"Rem", minInt, -1, 0, "as in Go"},
		{"Rem", minInt, maxInt, -1, ""},
		{"Rem", maxInt, minInt, maxInt, ""},
		{"Rem", 5, 0, 5, "bvsrem by zero"},
		{"Rem", -5, 0, -5, "bvsrem by zero"},
		{"Rem", 0, 0, 0, "bvsrem by zero"},
		{"And", -1, 0x5a, 0x5a, ""},
		{"And", minInt, -1, minInt, ""},
		{"Or", minInt, 1, minInt + 1, ""},
		{"Or", 0, -2, -2, ""},
		{"Xor", -1, 0x0f, -0x10, ""},
		{"Xor", minInt, maxInt, -1, ""},
		{"Shl", 1, 0, 1, "by 0"},
		{"Shl", 1, 63, minInt, "by 63"},
		{"Shl", 3, 62, minInt / 2, "bits shifted out"},
		{"Shl", 1, 64, 0, "by 64"},
		{"Shl", -1, 65, 0, "by more than 64"},
		{"Shl", -1, -1, 0, "negative count is huge"},
		{"Shl", 5, minInt, 0, "negative count is huge"},
		{"Shr", minInt, 0, minInt, "by 0"},
		{"Shr", minInt, 63, -1, "by 63"},
		{"Shr", maxInt, 63, 0, "by 63"},
		{"Shr", minInt, 64, -1, "sign fill"},
		{"Shr", 5, 64, 0, "sign fill"},
		{"Shr", -5, 1, -3, "arithmetic, rounds down"},
		{"Shr", minInt, -1, -1, "negative count is huge"},
		{"Shr", maxInt, minInt, 0, "negative count is huge"},
		{"Eq", minInt, minInt, 1, ""},
		{"Eq", minInt, maxInt, 0, ""},
		{"Ne", 0, -1, 1, ""},
		{"Ne", 7, 7, 0, ""},
		{"Lt", minInt, maxInt, 1, "signed"},
		{"Lt", -1, 0, 1, "signed"},
		{"Lt", 0, -1, 0, "signed"},
		{"Lt", 5, 5, 0, ""},
		{"Le", 5, 5, 1, ""},
		{"Le", maxInt, minInt, 0, "signed"},
		{"Gt", 0, minInt, 1, "signed"},
		{"Gt", 3, 3, 0, ""},
		{"Ge", 3, 3, 1, ""},
		{"Ge", -1, 0, 0, "signed"},
	}
	for _, tc := range tests {
		tab := sym.NewTable()
		f := binOps[tc.op]
		x, y := tab.Var(0), tab.Var(1)
		ca, cb := tab.Const(tc.a), tab.Const(tc.b)
		var m sym.Model
		m.Set(0, tc.a)
		m.Set(1, tc.b)
		for _, args := range [][2]sym.Term{{ca, cb}, {x, y}, {x, cb}, {ca, y}} {
			r := f(tab, args[0], args[1])
			if got := tab.Eval(r, m); got != tc.want {
				t.Errorf("%s(%d, %d) [%s] = %d, want %d (%s)", tc.op, tc.a, tc.b, tab.String(r), got, tc.want, tc.comment)
			}
		}
		folded := f(tab, ca, cb)
		if tab.Sort(folded) == sym.Int {
			if v, ok := tab.IsConst(folded); !ok || v != tc.want {
				t.Errorf("%s(%d, %d) folds to %s, want %d", tc.op, tc.a, tc.b, tab.String(folded), tc.want)
			}
		} else if v, ok := tab.IsBoolConst(folded); !ok || v != (tc.want == 1) {
			t.Errorf("%s(%d, %d) folds to %s, want %v", tc.op, tc.a, tc.b, tab.String(folded), tc.want == 1)
		}
	}
}

func v(id int64) *symtest.Expr { return &symtest.Expr{Op: symtest.Var, Value: id} }

func c(k int64) *symtest.Expr { return &symtest.Expr{Op: symtest.Const, Value: k} }

func e(op symtest.Op, args ...*symtest.Expr) *symtest.Expr {
	return &symtest.Expr{Op: op, Args: args}
}

// gridModels returns models giving variables 0..2 combinations of edge
// values.
func gridModels() []sym.Model {
	vals := []int64{0, 1, -1, 2, 5, -7, 63, 64, minInt, maxInt, minInt + 1}
	var ms []sym.Model
	for _, a := range vals {
		for _, b := range vals {
			var m sym.Model
			m.Set(0, a)
			m.Set(1, b)
			m.Set(2, a^b)
			ms = append(ms, m)
		}
	}
	return ms
}

// TestSimplifications checks that the rewrites happen, and that each is
// sound on a grid of edge values according to the reference semantics.
func TestSimplifications(t *testing.T) {
	x, y := v(0), v(1)
	p := e(symtest.Lt, x, y)
	tests := []struct {
		name string
		in   *symtest.Expr
		want func(t *sym.Table) sym.Term
	}{
		{"x+0", e(symtest.Add, x, c(0)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"0+x", e(symtest.Add, c(0), x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x+y commutes", e(symtest.Add, y, x), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Var(1)) }},
		{"(x+3)+4", e(symtest.Add, e(symtest.Add, x, c(3)), c(4)), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Const(7)) }},
		{"(x+max)+1", e(symtest.Add, e(symtest.Add, x, c(maxInt)), c(1)), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Const(minInt)) }},
		{"(x+3)+-3", e(symtest.Add, e(symtest.Add, x, c(3)), c(-3)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x+-y", e(symtest.Add, x, e(symtest.Neg, y)), func(t *sym.Table) sym.Term { return t.Sub(t.Var(0), t.Var(1)) }},
		{"x-x", e(symtest.Sub, x, x), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x-3", e(symtest.Sub, x, c(3)), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Const(-3)) }},
		{"x-min", e(symtest.Sub, x, c(minInt)), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Const(minInt)) }},
		{"0-x", e(symtest.Sub, c(0), x), func(t *sym.Table) sym.Term { return t.Neg(t.Var(0)) }},
		{"x- -y", e(symtest.Sub, x, e(symtest.Neg, y)), func(t *sym.Table) sym.Term { return t.Add(t.Var(0), t.Var(1)) }},
		{"(x+y)-y", e(symtest.Sub, e(symtest.Add, x, y), y), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"(x+y)-x", e(symtest.Sub, e(symtest.Add, x, y), x), func(t *sym.Table) sym.Term { return t.Var(1) }},
		{"--x", e(symtest.Neg, e(symtest.Neg, x)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"-(x-y)", e(symtest.Neg, e(symtest.Sub, x, y)), func(t *sym.Table) sym.Term { return t.Sub(t.Var(1), t.Var(0)) }},
		{"x*0", e(symtest.Mul, x, c(0)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x*1", e(symtest.Mul, c(1), x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x*-1", e(symtest.Mul, x, c(-1)), func(t *sym.Table) sym.Term { return t.Neg(t.Var(0)) }},
		{"(x*3)*5", e(symtest.Mul, e(symtest.Mul, x, c(3)), c(5)), func(t *sym.Table) sym.Term { return t.Mul(t.Var(0), t.Const(15)) }},
		{"x/1", e(symtest.Div, x, c(1)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x/-1", e(symtest.Div, x, c(-1)), func(t *sym.Table) sym.Term { return t.Neg(t.Var(0)) }},
		{"x%1", e(symtest.Rem, x, c(1)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x%-1", e(symtest.Rem, x, c(-1)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x%x", e(symtest.Rem, x, x), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"0%x", e(symtest.Rem, c(0), x), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x&0", e(symtest.And, x, c(0)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x&-1", e(symtest.And, c(-1), x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x&x", e(symtest.And, x, x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"(x&12)&10", e(symtest.And, e(symtest.And, x, c(12)), c(10)), func(t *sym.Table) sym.Term { return t.And(t.Var(0), t.Const(8)) }},
		{"x|0", e(symtest.Or, x, c(0)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x|-1", e(symtest.Or, x, c(-1)), func(t *sym.Table) sym.Term { return t.Const(-1) }},
		{"x|x", e(symtest.Or, x, x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"(x|1)|2", e(symtest.Or, e(symtest.Or, x, c(1)), c(2)), func(t *sym.Table) sym.Term { return t.Or(t.Var(0), t.Const(3)) }},
		{"x^x", e(symtest.Xor, x, x), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x^0", e(symtest.Xor, x, c(0)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"(x^5)^5", e(symtest.Xor, e(symtest.Xor, x, c(5)), c(5)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x<<0", e(symtest.Shl, x, c(0)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x<<64", e(symtest.Shl, x, c(64)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x<<-1", e(symtest.Shl, x, c(-1)), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"0<<x", e(symtest.Shl, c(0), x), func(t *sym.Table) sym.Term { return t.Const(0) }},
		{"x>>0", e(symtest.Shr, x, c(0)), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"x>>100", e(symtest.Shr, x, c(100)), func(t *sym.Table) sym.Term { return t.Shr(t.Var(0), t.Const(63)) }},
		{"x>>min", e(symtest.Shr, x, c(minInt)), func(t *sym.Table) sym.Term { return t.Shr(t.Var(0), t.Const(63)) }},
		{"-1>>x", e(symtest.Shr, c(-1), x), func(t *sym.Table) sym.Term { return t.Const(-1) }},
		{"x==x", e(symtest.Eq, x, x), func(t *sym.Table) sym.Term { return t.True() }},
		{"x!=x", e(symtest.Ne, x, x), func(t *sym.Table) sym.Term { return t.False() }},
		{"x<x", e(symtest.Lt, x, x), func(t *sym.Table) sym.Term { return t.False() }},
		{"x<=x", e(symtest.Le, x, x), func(t *sym.Table) sym.Term { return t.True() }},
		{"x>x", e(symtest.Gt, x, x), func(t *sym.Table) sym.Term { return t.False() }},
		{"x>=x", e(symtest.Ge, x, x), func(t *sym.Table) sym.Term { return t.True() }},
		{"3==x", e(symtest.Eq, c(3), x), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Const(3)) }},
		{"x+3==5", e(symtest.Eq, e(symtest.Add, x, c(3)), c(5)), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Const(2)) }},
		{"x+1==min", e(symtest.Eq, e(symtest.Add, x, c(1)), c(minInt)), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Const(maxInt)) }},
		{"x^3==5", e(symtest.Eq, e(symtest.Xor, x, c(3)), c(5)), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Const(6)) }},
		{"-x==5", e(symtest.Eq, e(symtest.Neg, x), c(5)), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Const(-5)) }},
		{"x-y==0", e(symtest.Eq, e(symtest.Sub, x, y), c(0)), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Var(1)) }},
		{"x>y", e(symtest.Gt, x, y), func(t *sym.Table) sym.Term { return t.Lt(t.Var(1), t.Var(0)) }},
		{"x>=y", e(symtest.Ge, x, y), func(t *sym.Table) sym.Term { return t.Le(t.Var(1), t.Var(0)) }},
		{"x<5", e(symtest.Lt, x, c(5)), func(t *sym.Table) sym.Term { return t.Le(t.Var(0), t.Const(4)) }},
		{"5<x", e(symtest.Lt, c(5), x), func(t *sym.Table) sym.Term { return t.Le(t.Const(6), t.Var(0)) }},
		{"x<min", e(symtest.Lt, x, c(minInt)), func(t *sym.Table) sym.Term { return t.False() }},
		{"max<x", e(symtest.Lt, c(maxInt), x), func(t *sym.Table) sym.Term { return t.False() }},
		{"x<=max", e(symtest.Le, x, c(maxInt)), func(t *sym.Table) sym.Term { return t.True() }},
		{"min<=x", e(symtest.Le, c(minInt), x), func(t *sym.Table) sym.Term { return t.True() }},
		{"!!p", e(symtest.Not, e(symtest.Not, p)), func(t *sym.Table) sym.Term { return t.Lt(t.Var(0), t.Var(1)) }},
		{"!(x<y)", e(symtest.Not, p), func(t *sym.Table) sym.Term { return t.Le(t.Var(1), t.Var(0)) }},
		{"!(x<=y)", e(symtest.Not, e(symtest.Le, x, y)), func(t *sym.Table) sym.Term { return t.Lt(t.Var(1), t.Var(0)) }},
		{"!!(x==y)", e(symtest.Not, e(symtest.Not, e(symtest.Eq, x, y))), func(t *sym.Table) sym.Term { return t.Eq(t.Var(0), t.Var(1)) }},
		{"!true", e(symtest.Not, e(symtest.True)), func(t *sym.Table) sym.Term { return t.False() }},
		{"p&&false", e(symtest.BAnd, p, e(symtest.False)), func(t *sym.Table) sym.Term { return t.False() }},
		{"true&&p", e(symtest.BAnd, e(symtest.True), p), func(t *sym.Table) sym.Term { return t.Lt(t.Var(0), t.Var(1)) }},
		{"p&&p", e(symtest.BAnd, p, p), func(t *sym.Table) sym.Term { return t.Lt(t.Var(0), t.Var(1)) }},
		{"p&&!p", e(symtest.BAnd, p, e(symtest.Not, p)), func(t *sym.Table) sym.Term { return t.False() }},
		{"x==y&&x!=y", e(symtest.BAnd, e(symtest.Eq, x, y), e(symtest.Ne, y, x)), func(t *sym.Table) sym.Term { return t.False() }},
		{"p||true", e(symtest.BOr, p, e(symtest.True)), func(t *sym.Table) sym.Term { return t.True() }},
		{"false||p", e(symtest.BOr, e(symtest.False), p), func(t *sym.Table) sym.Term { return t.Lt(t.Var(0), t.Var(1)) }},
		{"p||!p", e(symtest.BOr, e(symtest.Not, p), p), func(t *sym.Table) sym.Term { return t.True() }},
		{"ite(true,x,y)", e(symtest.Ite, e(symtest.True), x, y), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"ite(false,x,y)", e(symtest.Ite, e(symtest.False), x, y), func(t *sym.Table) sym.Term { return t.Var(1) }},
		{"ite(p,x,x)", e(symtest.Ite, p, x, x), func(t *sym.Table) sym.Term { return t.Var(0) }},
		{"ite(x==y,x,y)", e(symtest.Ite, e(symtest.Ne, x, y), y, x), func(t *sym.Table) sym.Term {
			return t.Ite(t.Eq(t.Var(0), t.Var(1)), t.Var(0), t.Var(1))
		}},
		{"bite(p,true,false)", e(symtest.BIte, p, e(symtest.True), e(symtest.False)), func(t *sym.Table) sym.Term { return t.Lt(t.Var(0), t.Var(1)) }},
	}
	models := gridModels()
	for _, tc := range tests {
		tab := sym.NewTable()
		got := tc.in.Build(tab)
		if want := tc.want(tab); got != want {
			t.Errorf("%s: built %s, want %s", tc.name, tab.String(got), tab.String(want))
		}
		for _, m := range models {
			if g, w := tab.Eval(got, m), tc.in.EvalModel(m); g != w {
				t.Errorf("%s: %s under %v = %d, reference says %d", tc.name, tab.String(got), m, g, w)
				break
			}
		}
	}
}

func TestCommutative(t *testing.T) {
	for _, name := range []string{"Add", "Mul", "And", "Or", "Xor", "Eq", "Ne"} {
		tab := sym.NewTable()
		f := binOps[name]
		x, y, k := tab.Var(0), tab.Var(1), tab.Const(9)
		for _, p := range [][2]sym.Term{{x, y}, {x, k}, {k, y}} {
			if ab, ba := f(tab, p[0], p[1]), f(tab, p[1], p[0]); ab != ba {
				t.Errorf("%s(a, b) = %s but %s(b, a) = %s", name, tab.String(ab), name, tab.String(ba))
			}
		}
	}
	tab := sym.NewTable()
	p, q := tab.Lt(tab.Var(0), tab.Var(1)), tab.Eq(tab.Var(2), tab.Const(4))
	if tab.BAnd(p, q) != tab.BAnd(q, p) || tab.BOr(p, q) != tab.BOr(q, p) {
		t.Error("BAnd or BOr depends on operand order")
	}
}

// checkExpr compares sym's value of ex with the reference on models, and
// checks that rebuilding ex is idempotent. It returns false on a mismatch.
func checkExpr(t *testing.T, tab *sym.Table, ex *symtest.Expr, models []sym.Model) bool {
	t.Helper()
	term := ex.Build(tab)
	n := tab.Len()
	if again := ex.Build(tab); again != term || tab.Len() != n {
		t.Errorf("%v: rebuilding gave term %d (table %d terms), want %d (table %d terms)", ex, again, tab.Len(), term, n)
		return false
	}
	for _, m := range models {
		if got, want := tab.Eval(term, m), ex.EvalModel(m); got != want {
			t.Errorf("%v\nsimplified to %s\nunder %v = %d, reference says %d", ex, tab.String(term), m, got, want)
			return false
		}
	}
	return true
}

func randomModels(r *rand.Rand, n int) []sym.Model {
	var ms []sym.Model
	for range n {
		var m sym.Model
		for id := range 3 {
			if r.IntN(2) == 0 {
				m.Set(id, symtest.Edge[r.IntN(len(symtest.Edge))])
			} else {
				m.Set(id, int64(r.IntN(41))-20)
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// TestRandomAgainstReference is the deterministic counterpart of
// FuzzSimplify, run on every test invocation.
func TestRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := &symtest.Gen{Src: symtest.Rand{R: r}, Vars: 3}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	tab := sym.NewTable()
	for i := range n {
		models := randomModels(r, 8)
		var ex *symtest.Expr
		if i%2 == 0 {
			ex = g.Int(4)
		} else {
			ex = g.Bool(4)
		}
		if !checkExpr(t, tab, ex, models) {
			return
		}
	}
}

// FuzzSimplify builds an expression from the fuzz input and checks that
// simplification preserves its meaning under the reference semantics and
// that hash-consing is idempotent.
func FuzzSimplify(f *testing.F) {
	f.Add([]byte{5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{9, 7, 0, 0, 8, 1, 1, 0xff, 0x80, 3, 2, 1})
	f.Add([]byte("\x0b\x02\x00\x05\x01\x0c\x00\x00\x00\x01\x40"))
	f.Add([]byte("\x01\x08\x02\x03\x09\x04\x00\x00\x00\x0e\x11\x22\x33"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &symtest.Bytes{Data: data}
		g := &symtest.Gen{Src: src, Vars: 3}
		ex := g.Int(5)
		bx := g.Bool(5)
		models := gridModels()
		var m sym.Model
		for id := range 3 {
			m.Set(id, src.Int64())
		}
		models = append(models, m)
		tab := sym.NewTable()
		if checkExpr(t, tab, ex, models) {
			checkExpr(t, tab, bx, models)
		}
		// A fresh table built in a different order yields equal meanings.
		tab2 := sym.NewTable()
		b2 := bx.Build(tab2)
		e2 := ex.Build(tab2)
		for _, m := range models[:5] {
			if tab2.Eval(e2, m) != tab.Eval(ex.Build(tab), m) || tab2.Eval(b2, m) != tab.Eval(bx.Build(tab), m) {
				t.Fatalf("tables disagree under %v", m)
			}
		}
	})
}

func TestHashConsingBounded(t *testing.T) {
	tab := sym.NewTable()
	build := func() sym.Term {
		x, y := tab.Var(0), tab.Var(1)
		s := tab.Add(tab.Mul(x, tab.Const(3)), tab.Div(y, tab.Const(7)))
		return tab.BAnd(tab.Lt(s, tab.Const(100)), tab.Ne(tab.Rem(x, y), tab.Const(0)))
	}
	first := build()
	n := tab.Len()
	for range 1000 {
		if got := build(); got != first {
			t.Fatalf("rebuilding gave %d, want %d", got, first)
		}
	}
	if tab.Len() != n {
		t.Errorf("table grew from %d to %d terms on identical rebuilds", n, tab.Len())
	}
}

func TestZeroTable(t *testing.T) {
	var tab sym.Table
	if tab.Len() != 2 {
		t.Errorf("zero Table has %d terms, want 2 (true and false)", tab.Len())
	}
	x := tab.Add(tab.Var(1), tab.Const(1))
	var m sym.Model
	m.Set(1, 41)
	if got := tab.Eval(x, m); got != 42 {
		t.Errorf("Eval = %d, want 42", got)
	}
	if !tab.EvalBool(tab.True(), m) || tab.EvalBool(tab.False(), m) {
		t.Error("constants evaluate wrongly")
	}
}

// TestDeepDAG checks that traversals neither recurse per level nor
// expand shared subterms.
func TestDeepDAG(t *testing.T) {
	tab := sym.NewTable()
	x := tab.Var(0)
	chain := x
	for i := range 200000 {
		chain = tab.Add(tab.Mul(chain, tab.Var(1)), tab.Var(i%5))
	}
	var m sym.Model
	m.Set(0, 1)
	m.Set(1, 1)
	m.Set(2, 2)
	want := int64(1)
	for i := range 200000 {
		want = want*1 + m.Get(i%5)
	}
	if got := tab.Eval(chain, m); got != want {
		t.Errorf("chain evaluates to %d, want %d", got, want)
	}
	if got := tab.Vars(chain); len(got) != 5 {
		t.Errorf("Vars(chain) = %v, want [0 1 2 3 4]", got)
	}

	// 2^100 paths through 200 nodes.
	shared := x
	for range 100 {
		shared = tab.Xor(tab.Add(shared, tab.Const(1)), tab.Shl(shared, tab.Const(1)))
	}
	ref := int64(1)
	for range 100 {
		ref = (ref + 1) ^ (ref << 1)
	}
	if got := tab.Eval(shared, m); got != ref {
		t.Errorf("shared DAG evaluates to %d, want %d", got, ref)
	}
	if s := tab.String(shared); len(s) > 5000 || !strings.HasSuffix(s, "...") {
		t.Errorf("String of an exponential DAG has length %d, want it cut off", len(s))
	}
}

func TestVars(t *testing.T) {
	tab := sym.NewTable()
	x3, x1 := tab.Var(3), tab.Var(1)
	tests := []struct {
		term sym.Term
		want []int
	}{
		{tab.Const(4), nil},
		{tab.True(), nil},
		{x3, []int{3}},
		{tab.Lt(tab.Add(x3, x1), tab.Mul(x3, tab.Var(0))), []int{0, 1, 3}},
		{tab.Sub(x3, x3), nil},
	}
	for _, tc := range tests {
		got := tab.Vars(tc.term)
		if len(got) != len(tc.want) {
			t.Errorf("Vars(%s) = %v, want %v", tab.String(tc.term), got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Vars(%s) = %v, want %v", tab.String(tc.term), got, tc.want)
				break
			}
		}
	}
	if got := tab.AppendVars([]int{7}, x3, x1, x3); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 7 {
		t.Errorf("AppendVars = %v, want [1 3 7]", got)
	}
}

func TestString(t *testing.T) {
	tab := sym.NewTable()
	x0, x1 := tab.Var(0), tab.Var(1)
	tests := []struct {
		term sym.Term
		want string
	}{
		{tab.Lt(tab.Add(x0, tab.Const(3)), x1), "(x0 + 3) < x1"},
		{tab.Ne(x0, x1), "x0 != x1"},
		{tab.Gt(x0, x1), "x1 < x0"},
		{tab.BAnd(tab.Le(x0, x1), tab.Eq(tab.Neg(x0), x1)), "(x0 <= x1) && (x1 == (-x0))"},
		{tab.Ite(tab.Eq(x0, tab.Const(-2)), tab.Shr(x1, x0), tab.Const(7)), "ite(x0 == -2, x1 >> x0, 7)"},
		{tab.True(), "true"},
		{tab.BNot(tab.BOr(tab.Eq(x0, x1), tab.Eq(x0, tab.Const(1)))), "!((x0 == x1) || (x0 == 1))"},
	}
	for _, tc := range tests {
		if got := tab.String(tc.term); got != tc.want {
			t.Errorf("String = %q, want %q", got, tc.want)
		}
	}
}

func TestModel(t *testing.T) {
	var m sym.Model
	if m.Get(5) != 0 || m.Get(-1) != 0 {
		t.Error("unset variables must read as 0")
	}
	m.Set(2, -7)
	m.Set(9, 0)
	c := m.Clone()
	m.Set(2, 3)
	if c.Get(2) != -7 || m.Get(2) != 3 {
		t.Errorf("Clone shares storage: clone %v, original %v", c, m)
	}
	if got := c.String(); got != "{x2=-7}" {
		t.Errorf("String = %q, want {x2=-7}", got)
	}
	var z sym.Model
	z.Set(4, 0)
	if !z.Equal(sym.Model{}) || c.Equal(m) || !c.Equal(c.Clone()) {
		t.Error("Equal must treat unset variables as 0")
	}
}

func TestSortMismatchPanics(t *testing.T) {
	tab := sym.NewTable()
	tests := map[string]func(){
		"Add of Bool":     func() { tab.Add(tab.True(), tab.Var(0)) },
		"BAnd of Int":     func() { tab.BAnd(tab.True(), tab.Var(0)) },
		"Ite mixed arms":  func() { tab.Ite(tab.True(), tab.Var(0), tab.False()) },
		"invalid term":    func() { tab.Neg(0) },
		"negative var id": func() { tab.Var(-1) },
		"EvalBool of Int": func() { tab.EvalBool(tab.Var(0), sym.Model{}) },
	}
	for name, f := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestClone(t *testing.T) {
	tab := sym.NewTable()
	x := tab.Add(tab.Var(0), tab.Const(1))
	n := tab.Len()
	c := tab.Clone()
	if got := c.Add(c.Var(0), c.Const(1)); got != x {
		t.Errorf("the clone interns x+1 as %d, the table had it as %d", got, x)
	}
	c.Mul(c.Var(1), c.Const(3))
	if tab.Len() != n || c.Len() == n {
		t.Errorf("after a term added to the clone, the table has %d terms (had %d) and the clone %d", tab.Len(), n, c.Len())
	}
}

// TestSubst checks Subst against evaluation on random expressions: x with
// its variables replaced by the terms vars evaluates, in a model m, to x
// in the model that gives each variable i the value of vars[i] in m.
func TestSubst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := &symtest.Gen{Src: symtest.Rand{R: r}, Vars: 3}
	tab := sym.NewTable()
	for i := range 2000 {
		var x *symtest.Expr
		if i%2 == 0 {
			x = g.Int(4)
		} else {
			x = g.Bool(4)
		}
		// Replace variables 0 and 1; variable 2 stays.
		vars := []*symtest.Expr{g.Int(2), g.Int(2)}
		got := tab.Subst(x.Build(tab), []sym.Term{vars[0].Build(tab), vars[1].Build(tab)})
		for _, m := range randomModels(r, 4) {
			var inner sym.Model
			inner.Set(0, vars[0].EvalModel(m))
			inner.Set(1, vars[1].EvalModel(m))
			inner.Set(2, m.Get(2))
			want := x.EvalModel(inner)
			var have int64
			if i%2 == 0 {
				have = tab.Eval(got, m)
			} else if tab.EvalBool(got, m) {
				have = 1
			}
			if have != want {
				t.Fatalf("Subst(%v, [%v %v]) = %v in %v, want %v", x, vars[0], vars[1], have, m, want)
			}
		}
	}
}
