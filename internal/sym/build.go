package sym

import "fmt"

// Constructors panic when an operand has the wrong sort or is not a term of
// the Table: both are programming errors of the caller.

// True returns the Bool constant true.
func (t *Table) True() Term {
	t.ensure()
	return trueTerm
}

// False returns the Bool constant false.
func (t *Table) False() Term {
	t.ensure()
	return falseTerm
}

// BoolConst returns True() or False().
func (t *Table) BoolConst(b bool) Term {
	if b {
		return t.True()
	}
	return t.False()
}

// Const returns the Int constant v.
func (t *Table) Const(v int64) Term { return t.intern(Node{Op: OpConst, Value: v}) }

// Var returns Int variable number id. Ids are small non-negative integers
// chosen by the caller; models are slices indexed by them.
func (t *Table) Var(id int) Term {
	if id < 0 {
		panic(fmt.Sprintf("sym: negative variable id %d", id))
	}
	return t.intern(Node{Op: OpVar, Value: int64(id)})
}

func (t *Table) mk1(op Op, a Term) Term { return t.intern(Node{Op: op, Args: [3]Term{a}}) }

func (t *Table) mk2(op Op, a, b Term) Term { return t.intern(Node{Op: op, Args: [3]Term{a, b}}) }

// consts returns the values of a and b and whether both are constants.
func (t *Table) consts(a, b Term) (int64, int64, bool) {
	x, okA := t.IsConst(a)
	y, okB := t.IsConst(b)
	return x, y, okA && okB
}

// order puts the operands of a commutative operation in canonical order:
// a constant last, otherwise by increasing Term.
func (t *Table) order(a, b Term) (Term, Term) {
	_, ca := t.IsConst(a)
	_, cb := t.IsConst(b)
	if ca && !cb || ca == cb && a > b {
		return b, a
	}
	return a, b
}

// constArg returns the operands of x when x is op applied to a non-constant
// and a constant operand, which order puts second.
func (t *Table) constArg(x Term, op Op) (Term, int64, bool) {
	n := t.node(x)
	if n.Op != op {
		return 0, 0, false
	}
	c, ok := t.IsConst(n.Args[1])
	return n.Args[0], c, ok
}

// Add returns a + b, wrapping on overflow.
func (t *Table) Add(a, b Term) Term {
	t.want(Int, "Add", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x + y)
	}
	if c, ok := t.IsConst(b); ok {
		if c == 0 {
			return a
		}
		if y, c0, ok := t.constArg(a, OpAdd); ok {
			return t.Add(y, t.Const(c0+c))
		}
	}
	if n := t.node(b); n.Op == OpNeg {
		return t.Sub(a, n.Args[0])
	}
	if n := t.node(a); n.Op == OpNeg {
		return t.Sub(b, n.Args[0])
	}
	return t.mk2(OpAdd, a, b)
}

// Sub returns a - b, wrapping on overflow.
func (t *Table) Sub(a, b Term) Term {
	t.want(Int, "Sub", a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x - y)
	}
	if a == b {
		return t.Const(0)
	}
	if c, ok := t.IsConst(b); ok {
		return t.Add(a, t.Const(-c))
	}
	if c, ok := t.IsConst(a); ok && c == 0 {
		return t.Neg(b)
	}
	if n := t.node(b); n.Op == OpNeg {
		return t.Add(a, n.Args[0])
	}
	if n := t.node(a); n.Op == OpAdd {
		// (x + y) - y == x and (x + y) - x == y hold under wrapping.
		if n.Args[1] == b {
			return n.Args[0]
		}
		if n.Args[0] == b {
			return n.Args[1]
		}
	}
	return t.mk2(OpSub, a, b)
}

// Neg returns -a, wrapping on overflow: Neg(MinInt64) is MinInt64.
func (t *Table) Neg(a Term) Term {
	t.want(Int, "Neg", a)
	if x, ok := t.IsConst(a); ok {
		return t.Const(-x)
	}
	switch n := t.node(a); n.Op {
	case OpNeg:
		return n.Args[0]
	case OpSub:
		return t.Sub(n.Args[1], n.Args[0])
	}
	return t.mk1(OpNeg, a)
}

// Mul returns a * b, wrapping on overflow (the low 64 bits of the product).
func (t *Table) Mul(a, b Term) Term {
	t.want(Int, "Mul", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x * y)
	}
	if c, ok := t.IsConst(b); ok {
		switch c {
		case 0:
			return b
		case 1:
			return a
		case -1:
			return t.Neg(a)
		}
		if y, c0, ok := t.constArg(a, OpMul); ok {
			return t.Mul(y, t.Const(c0*c))
		}
	}
	return t.mk2(OpMul, a, b)
}

// Div returns a / b truncated toward zero, as Go's int64 division, with
// MinInt64 / -1 == MinInt64. Division by zero follows SMT-LIB bvsdiv
// instead of panicking: a / 0 is -1 when a >= 0 and 1 when a < 0.
func (t *Table) Div(a, b Term) Term {
	t.want(Int, "Div", a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(div(x, y))
	}
	if c, ok := t.IsConst(b); ok {
		switch c {
		case 1:
			return a
		case -1:
			return t.Neg(a)
		}
	}
	return t.mk2(OpDiv, a, b)
}

// Rem returns a % b, the remainder of Div: it has the sign of a, and
// MinInt64 % -1 == 0. Following SMT-LIB bvsrem, a % 0 is a.
func (t *Table) Rem(a, b Term) Term {
	t.want(Int, "Rem", a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(rem(x, y))
	}
	if c, ok := t.IsConst(b); ok && (c == 1 || c == -1) {
		return t.Const(0)
	}
	// x % x is 0 for x != 0, and 0 % 0 is 0 by the zero-divisor rule;
	// 0 % y is 0 for every y likewise.
	if c, ok := t.IsConst(a); a == b || ok && c == 0 {
		return t.Const(0)
	}
	return t.mk2(OpRem, a, b)
}

// And returns the bitwise a & b.
func (t *Table) And(a, b Term) Term {
	t.want(Int, "And", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x & y)
	}
	if a == b {
		return a
	}
	if c, ok := t.IsConst(b); ok {
		switch c {
		case 0:
			return b
		case -1:
			return a
		}
		if y, c0, ok := t.constArg(a, OpAnd); ok {
			return t.And(y, t.Const(c0&c))
		}
	}
	return t.mk2(OpAnd, a, b)
}

// Or returns the bitwise a | b.
func (t *Table) Or(a, b Term) Term {
	t.want(Int, "Or", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x | y)
	}
	if a == b {
		return a
	}
	if c, ok := t.IsConst(b); ok {
		switch c {
		case 0:
			return a
		case -1:
			return b
		}
		if y, c0, ok := t.constArg(a, OpOr); ok {
			return t.Or(y, t.Const(c0|c))
		}
	}
	return t.mk2(OpOr, a, b)
}

// Xor returns the bitwise a ^ b.
func (t *Table) Xor(a, b Term) Term {
	t.want(Int, "Xor", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.Const(x ^ y)
	}
	if a == b {
		return t.Const(0)
	}
	if c, ok := t.IsConst(b); ok {
		if c == 0 {
			return a
		}
		if y, c0, ok := t.constArg(a, OpXor); ok {
			return t.Xor(y, t.Const(c0^c))
		}
	}
	return t.mk2(OpXor, a, b)
}

// Shl returns a << s, reading the count s as an unsigned 64-bit number:
// the result is 0 when uint64(s) >= 64. For non-negative counts this is
// Go's <<; callers handle negative counts, which panic in Go, themselves.
func (t *Table) Shl(a, s Term) Term {
	t.want(Int, "Shl", a, s)
	if x, y, ok := t.consts(a, s); ok {
		return t.Const(shl(x, y))
	}
	if c, ok := t.IsConst(s); ok {
		if c == 0 {
			return a
		}
		if uint64(c) >= 64 {
			return t.Const(0)
		}
	}
	if c, ok := t.IsConst(a); ok && c == 0 {
		return a
	}
	return t.mk2(OpShl, a, s)
}

// Shr returns the arithmetic shift a >> s, reading the count s as an
// unsigned 64-bit number: the result is the sign fill (0 or -1) when
// uint64(s) >= 64. For non-negative counts this is Go's >> on int64.
func (t *Table) Shr(a, s Term) Term {
	t.want(Int, "Shr", a, s)
	if x, y, ok := t.consts(a, s); ok {
		return t.Const(shr(x, y))
	}
	if c, ok := t.IsConst(s); ok {
		if c == 0 {
			return a
		}
		if uint64(c) > 63 {
			return t.Shr(a, t.Const(63))
		}
	}
	if c, ok := t.IsConst(a); ok && (c == 0 || c == -1) {
		return a
	}
	return t.mk2(OpShr, a, s)
}

// Ite returns b if c is true and e otherwise. The arms must have the same
// sort; Bool arms are expressed with BAnd and BOr.
func (t *Table) Ite(c, b, e Term) Term {
	t.want(Bool, "Ite", c)
	if t.Sort(b) == Bool {
		t.want(Bool, "Ite", e)
		return t.BOr(t.BAnd(c, b), t.BAnd(t.BNot(c), e))
	}
	t.want(Int, "Ite", b, e)
	if v, ok := t.IsBoolConst(c); ok {
		if v {
			return b
		}
		return e
	}
	if b == e {
		return b
	}
	if n := t.node(c); n.Op == OpNot {
		c, b, e = n.Args[0], e, b
	}
	return t.intern(Node{Op: OpIte, Args: [3]Term{c, b, e}})
}

// Eq returns a == b.
func (t *Table) Eq(a, b Term) Term {
	t.want(Int, "Eq", a, b)
	a, b = t.order(a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.BoolConst(x == y)
	}
	if a == b {
		return t.True()
	}
	if c, ok := t.IsConst(b); ok {
		// Adding, xoring and negating are bijections on int64, so they
		// can be moved to the constant side.
		if y, c0, ok := t.constArg(a, OpAdd); ok {
			return t.Eq(y, t.Const(c-c0))
		}
		if y, c0, ok := t.constArg(a, OpXor); ok {
			return t.Eq(y, t.Const(c^c0))
		}
		if n := t.node(a); n.Op == OpNeg {
			return t.Eq(n.Args[0], t.Const(-c))
		}
		if n := t.node(a); n.Op == OpSub && c == 0 {
			return t.Eq(n.Args[0], n.Args[1])
		}
	}
	return t.mk2(OpEq, a, b)
}

// Ne returns a != b, which is BNot(Eq(a, b)).
func (t *Table) Ne(a, b Term) Term { return t.BNot(t.Eq(a, b)) }

// Lt returns the signed comparison a < b.
func (t *Table) Lt(a, b Term) Term {
	t.want(Int, "Lt", a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.BoolConst(x < y)
	}
	if a == b {
		return t.False()
	}
	if c, ok := t.IsConst(b); ok {
		if c == minInt {
			return t.False()
		}
		return t.Le(a, t.Const(c-1))
	}
	if c, ok := t.IsConst(a); ok {
		if c == maxInt {
			return t.False()
		}
		return t.Le(t.Const(c+1), b)
	}
	return t.mk2(OpLt, a, b)
}

// Le returns the signed comparison a <= b.
func (t *Table) Le(a, b Term) Term {
	t.want(Int, "Le", a, b)
	if x, y, ok := t.consts(a, b); ok {
		return t.BoolConst(x <= y)
	}
	if a == b {
		return t.True()
	}
	if c, ok := t.IsConst(b); ok && c == maxInt {
		return t.True()
	}
	if c, ok := t.IsConst(a); ok && c == minInt {
		return t.True()
	}
	return t.mk2(OpLe, a, b)
}

// Gt returns the signed comparison a > b, which is Lt(b, a).
func (t *Table) Gt(a, b Term) Term { return t.Lt(b, a) }

// Ge returns the signed comparison a >= b, which is Le(b, a).
func (t *Table) Ge(a, b Term) Term { return t.Le(b, a) }

// BNot returns the negation of a. Negated comparisons become the opposite
// comparison, so only equalities and connectives are ever negated.
func (t *Table) BNot(a Term) Term {
	t.want(Bool, "BNot", a)
	switch n := t.node(a); n.Op {
	case OpTrue:
		return t.False()
	case OpFalse:
		return t.True()
	case OpNot:
		return n.Args[0]
	case OpLt:
		return t.Le(n.Args[1], n.Args[0])
	case OpLe:
		return t.Lt(n.Args[1], n.Args[0])
	}
	return t.mk1(OpNot, a)
}

// complementary reports whether a is the negation of b, which BNot
// expresses either with OpNot or, for comparisons, by the opposite one.
func (t *Table) complementary(a, b Term) bool {
	na, nb := t.node(a), t.node(b)
	switch {
	case na.Op == OpNot:
		return na.Args[0] == b
	case nb.Op == OpNot:
		return nb.Args[0] == a
	case na.Op == OpLt && nb.Op == OpLe || na.Op == OpLe && nb.Op == OpLt:
		return na.Args[0] == nb.Args[1] && na.Args[1] == nb.Args[0]
	}
	return false
}

// BAnd returns the conjunction a && b.
func (t *Table) BAnd(a, b Term) Term {
	t.want(Bool, "BAnd", a, b)
	if a > b {
		a, b = b, a
	}
	// False and True are the two smallest Terms.
	switch {
	case a == falseTerm:
		return a
	case a == trueTerm || a == b:
		return b
	case t.complementary(a, b):
		return t.False()
	}
	return t.mk2(OpBAnd, a, b)
}

// BOr returns the disjunction a || b.
func (t *Table) BOr(a, b Term) Term {
	t.want(Bool, "BOr", a, b)
	if a > b {
		a, b = b, a
	}
	switch {
	case a == trueTerm:
		return a
	case a == falseTerm || a == b:
		return b
	case t.complementary(a, b):
		return t.True()
	}
	return t.mk2(OpBOr, a, b)
}

// Subst returns x with the variables 0 to len(vars)-1 replaced by the
// terms vars, rebuilt with the constructors, which simplify what the
// replacement makes constant.
func (t *Table) Subst(x Term, vars []Term) Term {
	memo := map[Term]Term{}
	var walk func(Term) Term
	walk = func(x Term) Term {
		if r, ok := memo[x]; ok {
			return r
		}
		n := t.Node(x)
		r := x
		switch n.Op {
		case OpFalse, OpTrue, OpConst:
		case OpVar:
			if id := int(n.Value); id < len(vars) {
				r = vars[id]
			}
		default:
			var a [3]Term
			for i := range n.Op.Arity() {
				a[i] = walk(n.Args[i])
			}
			r = t.apply(n.Op, a)
		}
		memo[x] = r
		return r
	}
	return walk(x)
}

// apply applies op to the operands a with its constructor.
func (t *Table) apply(op Op, a [3]Term) Term {
	switch op {
	case OpAdd:
		return t.Add(a[0], a[1])
	case OpSub:
		return t.Sub(a[0], a[1])
	case OpMul:
		return t.Mul(a[0], a[1])
	case OpDiv:
		return t.Div(a[0], a[1])
	case OpRem:
		return t.Rem(a[0], a[1])
	case OpNeg:
		return t.Neg(a[0])
	case OpAnd:
		return t.And(a[0], a[1])
	case OpOr:
		return t.Or(a[0], a[1])
	case OpXor:
		return t.Xor(a[0], a[1])
	case OpShl:
		return t.Shl(a[0], a[1])
	case OpShr:
		return t.Shr(a[0], a[1])
	case OpIte:
		return t.Ite(a[0], a[1], a[2])
	case OpEq:
		return t.Eq(a[0], a[1])
	case OpLt:
		return t.Lt(a[0], a[1])
	case OpLe:
		return t.Le(a[0], a[1])
	case OpNot:
		return t.BNot(a[0])
	case OpBAnd:
		return t.BAnd(a[0], a[1])
	case OpBOr:
		return t.BOr(a[0], a[1])
	}
	panic(fmt.Sprintf("sym: no constructor for %v", op))
}
