// Package sym provides concolic values: inputs that the checker explores
// by the conditions the program evaluates on them, not by enumerating their
// values.
//
// An Int is a 64-bit two's-complement integer with Go's int64 semantics. A
// symbolic Int carries an expression over the inputs it was computed from
// and has a concrete value under the execution's current model. Arithmetic
// builds expressions and costs no exploration. Branching does: Bool.Eval,
// Assume, Assert and Choose record a constraint and return the outcome the
// execution takes. The checker explores each outcome that is feasible (it
// asks a solver only for outcomes the current model does not already
// give), and, with the optimal engine, each combination of outcomes and
// interleavings exactly once.
//
// Zero values are constants: Int{} is 0 and Bool{} is false. Ints may be
// stored in a weft.Var and passed between goroutines like any value.
//
//	x := sym.NewInt("x")
//	if x.Gt(sym.Const(100)).Eval() { // explored both ways
//		...
//	}
package sym

import (
	"fmt"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
	isym "weft.dev/weft/internal/sym"
)

// Int is a concolic 64-bit integer. The zero value is the constant 0.
type Int struct {
	t isym.Term // 0 for a constant
	c int64     // the constant's value
}

// Bool is a concolic condition. The zero value is the constant false.
type Bool struct {
	t isym.Term // 0 for a constant
	c bool
}

// Const returns the constant v.
func Const(v int64) Int { return Int{c: v} }

// True and False are the constant conditions.
var (
	True  = Bool{c: true}
	False = Bool{}
)

// NewInt returns a fresh unconstrained input. Inputs are identified by the
// goroutine that creates them and their rank among its inputs, so that the
// same input in every execution is the same variable; name documents the
// input at the call site. With weft.WithExplicitDomain, NewInt instead
// chooses each value of the domain in turn (an explored choice) and
// returns a constant.
func NewInt(name string) Int {
	id, v := runtime.SymNew()
	if runtime.Explicit() {
		return Int{c: v}
	}
	return Int{t: runtime.SymTable().Var(id)}
}

// IntIn returns a fresh input constrained to lo <= x <= hi: NewInt
// followed by Assume.
func IntIn(name string, lo, hi int64) Int {
	x := NewInt(name)
	Assume(x.Ge(Const(lo)).And(x.Le(Const(hi))))
	return x
}

// term returns x as a term of tab.
func (x Int) term(tab *isym.Table) isym.Term {
	if x.t != 0 {
		return x.t
	}
	return tab.Const(x.c)
}

func (b Bool) term(tab *isym.Table) isym.Term {
	if b.t != 0 {
		return b.t
	}
	return tab.BoolConst(b.c)
}

// mkInt wraps t, folding constants.
func mkInt(tab *isym.Table, t isym.Term) Int {
	if c, ok := tab.IsConst(t); ok {
		return Int{c: c}
	}
	return Int{t: t}
}

func mkBool(tab *isym.Table, t isym.Term) Bool {
	if c, ok := tab.IsBoolConst(t); ok {
		return Bool{c: c}
	}
	return Bool{t: t}
}

// binary applies op, concretely when both operands are constants.
func binary(x, y Int, concrete func(a, b int64) int64, op func(tab *isym.Table, a, b isym.Term) isym.Term) Int {
	if x.t == 0 && y.t == 0 {
		return Int{c: concrete(x.c, y.c)}
	}
	tab := runtime.SymTable()
	return mkInt(tab, op(tab, x.term(tab), y.term(tab)))
}

func compare(x, y Int, concrete func(a, b int64) bool, op func(tab *isym.Table, a, b isym.Term) isym.Term) Bool {
	if x.t == 0 && y.t == 0 {
		return Bool{c: concrete(x.c, y.c)}
	}
	tab := runtime.SymTable()
	return mkBool(tab, op(tab, x.term(tab), y.term(tab)))
}

// Add returns x + y, wrapping around as int64 does.
func (x Int) Add(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a + b }, (*isym.Table).Add)
}

// Sub returns x - y, wrapping around.
func (x Int) Sub(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a - b }, (*isym.Table).Sub)
}

// Mul returns x * y, wrapping around.
func (x Int) Mul(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a * b }, (*isym.Table).Mul)
}

// divideByZero is the panic of an integer division by zero, as Go raises
// it.
type divideByZero struct{}

func (divideByZero) Error() string { return "runtime error: integer divide by zero" }
func (divideByZero) RuntimeError() {}

// checkDivisor panics, as Go does, in the executions where y is zero; when
// y may be zero, that is a branch.
func checkDivisor(y Int) {
	if y.Eq(Const(0)).Eval() {
		panic(divideByZero{})
	}
}

// Div returns x / y truncated toward zero, as Go's int64 division. The
// executions where y is zero panic, as Go does.
func (x Int) Div(y Int) Int {
	checkDivisor(y)
	return binary(x, y, func(a, b int64) int64 { return a / b }, (*isym.Table).Div)
}

// Rem returns x % y, with the sign of x, as Go's int64 remainder. The
// executions where y is zero panic, as Go does.
func (x Int) Rem(y Int) Int {
	checkDivisor(y)
	return binary(x, y, func(a, b int64) int64 { return a % b }, (*isym.Table).Rem)
}

// Neg returns -x, wrapping around.
func (x Int) Neg() Int {
	if x.t == 0 {
		return Int{c: -x.c}
	}
	tab := runtime.SymTable()
	return mkInt(tab, tab.Neg(x.t))
}

// And returns x & y.
func (x Int) And(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a & b }, (*isym.Table).And)
}

// Or returns x | y.
func (x Int) Or(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a | b }, (*isym.Table).Or)
}

// Xor returns x ^ y.
func (x Int) Xor(y Int) Int {
	return binary(x, y, func(a, b int64) int64 { return a ^ b }, (*isym.Table).Xor)
}

// negativeShift is the panic of a shift by a negative count.
type negativeShift struct{}

func (negativeShift) Error() string { return "runtime error: negative shift amount" }
func (negativeShift) RuntimeError() {}

func checkShift(s Int) {
	if s.Lt(Const(0)).Eval() {
		panic(negativeShift{})
	}
}

// Shl returns x << s: 0 when s >= 64. The executions where s is negative
// panic, as Go does.
func (x Int) Shl(s Int) Int {
	checkShift(s)
	return binary(x, s, func(a, b int64) int64 { return a << uint64(b) }, (*isym.Table).Shl)
}

// Shr returns x >> s, the arithmetic shift of int64: the sign fills it
// when s >= 64. The executions where s is negative panic, as Go does.
func (x Int) Shr(s Int) Int {
	checkShift(s)
	return binary(x, s, func(a, b int64) int64 { return a >> uint64(b) }, (*isym.Table).Shr)
}

// Eq returns the condition x == y.
func (x Int) Eq(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a == b }, (*isym.Table).Eq)
}

// Ne returns the condition x != y.
func (x Int) Ne(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a != b }, (*isym.Table).Ne)
}

// Lt returns the condition x < y.
func (x Int) Lt(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a < b }, (*isym.Table).Lt)
}

// Le returns the condition x <= y.
func (x Int) Le(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a <= b }, (*isym.Table).Le)
}

// Gt returns the condition x > y.
func (x Int) Gt(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a > b }, (*isym.Table).Gt)
}

// Ge returns the condition x >= y.
func (x Int) Ge(y Int) Bool {
	return compare(x, y, func(a, b int64) bool { return a >= b }, (*isym.Table).Ge)
}

// And returns the condition b && c (both are kept: no branch).
func (b Bool) And(c Bool) Bool {
	if b.t == 0 && c.t == 0 {
		return Bool{c: b.c && c.c}
	}
	tab := runtime.SymTable()
	return mkBool(tab, tab.BAnd(b.term(tab), c.term(tab)))
}

// Or returns the condition b || c (no branch).
func (b Bool) Or(c Bool) Bool {
	if b.t == 0 && c.t == 0 {
		return Bool{c: b.c || c.c}
	}
	tab := runtime.SymTable()
	return mkBool(tab, tab.BOr(b.term(tab), c.term(tab)))
}

// Not returns the condition !b.
func (b Bool) Not() Bool {
	if b.t == 0 {
		return Bool{c: !b.c}
	}
	tab := runtime.SymTable()
	return mkBool(tab, tab.BNot(b.t))
}

// Eval is the branch point: it records the evaluation of b and returns the
// outcome this execution takes. A constant condition is just its value.
func (b Bool) Eval() bool {
	if b.t == 0 {
		return b.c
	}
	return runtime.SymEval(b.t, false)
}

// Concrete returns x's value in this execution and pins it: the execution
// records x == value, so the checker does not explore other values of x
// past this point.
func (x Int) Concrete() int64 {
	if x.t == 0 {
		return x.c
	}
	v := runtime.SymValue(x.t)
	tab := runtime.SymTable()
	runtime.SymEval(tab.Eq(x.t, tab.Const(v)), true)
	return v
}

// Assume evaluates b and blocks the calling goroutine forever when it is
// false, as weft.Assume does.
func Assume(b Bool) {
	if !b.Eval() {
		runtime.Block()
	}
}

// Assert evaluates b and reports an AssertionFailed bug when it is false.
// The message is formatted as by fmt.Sprintf.
func Assert(b Bool, format string, args ...any) {
	if !b.Eval() {
		runtime.Fail(engine.AssertionFailed, fmt.Sprintf(format, args...))
	}
}

// Choose returns x as an index in [0, n), exploring one outcome per index
// that x can take. Executions where x is out of range block, as Assume
// does.
func Choose(x Int, n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("sym.Choose: n = %d, want n > 0", n))
	}
	var i int
	if x.t == 0 {
		i = n
		if x.c >= 0 && x.c < int64(n) {
			i = int(x.c)
		}
	} else {
		i = runtime.SymChoose(x.t, n)
	}
	if i == n {
		runtime.Block()
	}
	return i
}

// String returns x's value in the current execution, without pinning it.
func (x Int) String() string {
	if x.t == 0 {
		return fmt.Sprint(x.c)
	}
	return fmt.Sprint(runtime.SymValue(x.t))
}

// String returns b's value in the current execution (without pinning it).
func (b Bool) String() string {
	if b.t == 0 {
		return fmt.Sprint(b.c)
	}
	return fmt.Sprint(runtime.SymTruth(b.t))
}
