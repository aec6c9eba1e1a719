// Package symtest provides random expressions and an independent reference
// semantics for testing package sym and the solvers built on it.
//
// An Expr is a plain expression tree that records the constructor calls a
// user would make, before any simplification. Its Eval method implements
// the documented int64 semantics from scratch with math/big, sharing no code
// with sym, so comparing Expr.Eval with sym's Eval of Expr.Build checks both
// the simplifier and sym's evaluator.
package symtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"weft.dev/weft/internal/sym"
)

// Op is an operation of an Expr: one per constructor of sym.Table.
type Op int

// The operations of Exprs.
const (
	Var Op = iota
	Const
	True
	False
	Add
	Sub
	Mul
	Div
	Rem
	Neg
	And
	Or
	Xor
	Shl
	Shr
	Ite // Int arms
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	Not
	BAnd
	BOr
	BIte // Bool arms
)

var opNames = [...]string{
	Var: "var", Const: "const", True: "true", False: "false",
	Add: "+", Sub: "-", Mul: "*", Div: "/", Rem: "%", Neg: "-", And: "&", Or: "|", Xor: "^",
	Shl: "<<", Shr: ">>", Ite: "ite", Eq: "==", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">=",
	Not: "!", BAnd: "&&", BOr: "||", BIte: "bite",
}

// Expr is an unsimplified expression tree.
type Expr struct {
	Op    Op
	Args  []*Expr
	Value int64 // the constant of Const, the id of Var
}

// Build constructs e in t with sym's constructors.
func (e *Expr) Build(t *sym.Table) sym.Term {
	a := make([]sym.Term, len(e.Args))
	for i, x := range e.Args {
		a[i] = x.Build(t)
	}
	switch e.Op {
	case Var:
		return t.Var(int(e.Value))
	case Const:
		return t.Const(e.Value)
	case True:
		return t.True()
	case False:
		return t.False()
	case Add:
		return t.Add(a[0], a[1])
	case Sub:
		return t.Sub(a[0], a[1])
	case Mul:
		return t.Mul(a[0], a[1])
	case Div:
		return t.Div(a[0], a[1])
	case Rem:
		return t.Rem(a[0], a[1])
	case Neg:
		return t.Neg(a[0])
	case And:
		return t.And(a[0], a[1])
	case Or:
		return t.Or(a[0], a[1])
	case Xor:
		return t.Xor(a[0], a[1])
	case Shl:
		return t.Shl(a[0], a[1])
	case Shr:
		return t.Shr(a[0], a[1])
	case Ite, BIte:
		return t.Ite(a[0], a[1], a[2])
	case Eq:
		return t.Eq(a[0], a[1])
	case Ne:
		return t.Ne(a[0], a[1])
	case Lt:
		return t.Lt(a[0], a[1])
	case Le:
		return t.Le(a[0], a[1])
	case Gt:
		return t.Gt(a[0], a[1])
	case Ge:
		return t.Ge(a[0], a[1])
	case Not:
		return t.BNot(a[0])
	case BAnd:
		return t.BAnd(a[0], a[1])
	case BOr:
		return t.BOr(a[0], a[1])
	}
	panic(fmt.Sprintf("symtest: bad op %d", e.Op))
}

var (
	two64  = new(big.Int).Lsh(big.NewInt(1), 64)
	minBig = big.NewInt(math.MinInt64)
	maxBig = big.NewInt(math.MaxInt64)
)

// wrap reduces x modulo 2^64 into the int64 range.
func wrap(x *big.Int) int64 {
	if x.Cmp(minBig) >= 0 && x.Cmp(maxBig) <= 0 {
		return x.Int64()
	}
	return int64(new(big.Int).Mod(x, two64).Uint64())
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Eval returns the value of e when variable i has value vars(i); Bool
// expressions yield 1 or 0.
func (e *Expr) Eval(vars func(int) int64) int64 {
	v := make([]int64, len(e.Args))
	for i, x := range e.Args {
		v[i] = x.Eval(vars)
	}
	bv := make([]*big.Int, len(v))
	for i, x := range v {
		bv[i] = big.NewInt(x)
	}
	r := new(big.Int)
	switch e.Op {
	case Var:
		return vars(int(e.Value))
	case Const:
		return e.Value
	case True:
		return 1
	case False:
		return 0
	case Add:
		return wrap(r.Add(bv[0], bv[1]))
	case Sub:
		return wrap(r.Sub(bv[0], bv[1]))
	case Mul:
		return wrap(r.Mul(bv[0], bv[1]))
	case Neg:
		return wrap(r.Neg(bv[0]))
	case Div:
		if v[1] == 0 { // SMT-LIB bvsdiv
			if v[0] >= 0 {
				return -1
			}
			return 1
		}
		return wrap(r.Quo(bv[0], bv[1]))
	case Rem:
		if v[1] == 0 { // SMT-LIB bvsrem
			return v[0]
		}
		return wrap(r.Rem(bv[0], bv[1]))
	case And:
		return wrap(r.And(bv[0], bv[1]))
	case Or:
		return wrap(r.Or(bv[0], bv[1]))
	case Xor:
		return wrap(r.Xor(bv[0], bv[1]))
	case Shl:
		if uint64(v[1]) >= 64 {
			return 0
		}
		return wrap(r.Lsh(bv[0], uint(v[1])))
	case Shr:
		return wrap(r.Rsh(bv[0], uint(min(uint64(v[1]), 64))))
	case Ite, BIte:
		if v[0] != 0 {
			return v[1]
		}
		return v[2]
	case Eq:
		return b2i(v[0] == v[1])
	case Ne:
		return b2i(v[0] != v[1])
	case Lt:
		return b2i(v[0] < v[1])
	case Le:
		return b2i(v[0] <= v[1])
	case Gt:
		return b2i(v[0] > v[1])
	case Ge:
		return b2i(v[0] >= v[1])
	case Not:
		return 1 - v[0]
	case BAnd:
		return v[0] & v[1]
	case BOr:
		return v[0] | v[1]
	}
	panic(fmt.Sprintf("symtest: bad op %d", e.Op))
}

// EvalModel evaluates e under a model.
func (e *Expr) EvalModel(m sym.Model) int64 { return e.Eval(m.Get) }

// String returns e fully parenthesized.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	switch e.Op {
	case Var:
		fmt.Fprintf(b, "x%d", e.Value)
		return
	case Const:
		fmt.Fprintf(b, "%d", e.Value)
		return
	case True, False:
		b.WriteString(opNames[e.Op])
		return
	}
	b.WriteByte('(')
	if len(e.Args) == 1 {
		b.WriteString(opNames[e.Op])
		e.Args[0].write(b)
	} else if len(e.Args) == 2 {
		e.Args[0].write(b)
		fmt.Fprintf(b, " %s ", opNames[e.Op])
		e.Args[1].write(b)
	} else {
		b.WriteString(opNames[e.Op])
		for _, a := range e.Args {
			b.WriteByte(' ')
			a.write(b)
		}
	}
	b.WriteByte(')')
}

// Edge lists the Int values at which int64 arithmetic changes behavior.
var Edge = []int64{
	0, 1, -1, 2, -2, 3, 7, 8, 63, 64, 65, -63, -64, 255, 1 << 31, 1 << 32, -1 << 32,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
	math.MaxInt32, math.MinInt32, 0x5555555555555555, -0x5555555555555556,
}

// Source supplies the choices of a Gen.
type Source interface {
	// IntN returns a number in [0, n), 0 < n <= 256.
	IntN(n int) int
	// Int64 returns an arbitrary int64.
	Int64() int64
}

// Bytes is a Source reading fuzz input; once exhausted it returns zeros,
// which makes Gen choose leaves, so every input yields a finite Expr.
type Bytes struct {
	Data []byte
}

// IntN consumes one byte.
func (s *Bytes) IntN(n int) int {
	if len(s.Data) == 0 {
		return 0
	}
	b := s.Data[0]
	s.Data = s.Data[1:]
	return int(b) % n
}

// Int64 consumes up to eight bytes.
func (s *Bytes) Int64() int64 {
	var buf [8]byte
	k := copy(buf[:], s.Data)
	s.Data = s.Data[k:]
	return int64(binary.LittleEndian.Uint64(buf[:]))
}

// Rand is a Source backed by a pseudo-random generator.
type Rand struct {
	R *rand.Rand
}

// IntN returns R.IntN(n).
func (s Rand) IntN(n int) int { return s.R.IntN(n) }

// Int64 returns a uniformly distributed int64.
func (s Rand) Int64() int64 { return int64(s.R.Uint64()) }

// Gen generates random expressions.
type Gen struct {
	Src  Source
	Vars int // variables have ids 0..Vars-1
	// Linear makes the right operand of Mul, Div and Rem a constant
	// from Edge or a small one. Products and quotients of two variables,
	// or by arbitrary 64-bit constants, make formulas that SAT solvers
	// find hard; concolic path conditions rarely have them.
	Linear bool
}

// Const returns a constant biased toward edge values.
func (g *Gen) Const() int64 {
	switch g.Src.IntN(4) {
	case 0, 1:
		return Edge[g.Src.IntN(len(Edge))]
	case 2:
		return int64(g.Src.IntN(33)) - 16
	}
	return g.Src.Int64()
}

var intOps = []Op{Add, Sub, Mul, Div, Rem, Neg, And, Or, Xor, Shl, Shr, Ite}

func (g *Gen) leaf() *Expr {
	if g.Vars > 0 && g.Src.IntN(3) != 2 {
		return &Expr{Op: Var, Value: int64(g.Src.IntN(g.Vars))}
	}
	return &Expr{Op: Const, Value: g.Const()}
}

// Int returns an Int expression of at most the given depth.
func (g *Gen) Int(depth int) *Expr {
	k := g.Src.IntN(len(intOps) + 2)
	if depth <= 0 || k < 2 {
		return g.leaf()
	}
	op := intOps[k-2]
	switch op {
	case Neg:
		return &Expr{Op: op, Args: []*Expr{g.Int(depth - 1)}}
	case Ite:
		return &Expr{Op: op, Args: []*Expr{g.Bool(depth - 1), g.Int(depth - 1), g.Int(depth - 1)}}
	case Shl, Shr:
		// Mostly in-range counts, which are the interesting ones.
		var s *Expr
		if g.Src.IntN(2) == 0 {
			s = &Expr{Op: Const, Value: int64(g.Src.IntN(66))}
		} else {
			s = g.Int(depth - 1)
		}
		return &Expr{Op: op, Args: []*Expr{g.Int(depth - 1), s}}
	}
	if g.Linear && (op == Mul || op == Div || op == Rem) {
		k := Edge[g.Src.IntN(len(Edge))]
		if g.Src.IntN(2) == 0 {
			k = int64(g.Src.IntN(33)) - 16
		}
		return &Expr{Op: op, Args: []*Expr{g.Int(depth - 1), {Op: Const, Value: k}}}
	}
	return &Expr{Op: op, Args: []*Expr{g.Int(depth - 1), g.Int(depth - 1)}}
}

// Bool returns a Bool expression of at most the given depth.
func (g *Gen) Bool(depth int) *Expr {
	k := g.Src.IntN(12)
	if depth <= 0 {
		k %= 7
	}
	switch k {
	case 0, 1, 2, 3, 4, 5:
		op := []Op{Eq, Ne, Lt, Le, Gt, Ge}[k]
		return &Expr{Op: op, Args: []*Expr{g.Int(depth - 1), g.Int(depth - 1)}}
	case 6:
		if g.Src.IntN(2) == 0 {
			return &Expr{Op: True}
		}
		return &Expr{Op: False}
	case 7:
		return &Expr{Op: Not, Args: []*Expr{g.Bool(depth - 1)}}
	case 8, 9:
		return &Expr{Op: BAnd, Args: []*Expr{g.Bool(depth - 1), g.Bool(depth - 1)}}
	case 10:
		return &Expr{Op: BOr, Args: []*Expr{g.Bool(depth - 1), g.Bool(depth - 1)}}
	}
	return &Expr{Op: BIte, Args: []*Expr{g.Bool(depth - 1), g.Bool(depth - 1), g.Bool(depth - 1)}}
}
