package sym

import "math"

// The semantics of the Int operations. Constant folding and Eval share
// them, so a folded constant always equals the value of the term it
// replaces; the tests check both against an independent reference.

func div(x, y int64) int64 {
	switch {
	case y == 0:
		// SMT-LIB bvsdiv: the unsigned quotient by zero is all ones,
		// negated when the dividend is negative.
		if x >= 0 {
			return -1
		}
		return 1
	case y == -1:
		// Go defines MinInt64 / -1 == MinInt64; negation wraps the same way.
		return -x
	}
	return x / y
}

func rem(x, y int64) int64 {
	switch y {
	case 0:
		return x
	case -1:
		return 0
	}
	return x % y
}

// shl and shr read the count as an unsigned 64-bit number.
func shl(x, s int64) int64 { return x << uint64(s) }

func shr(x, s int64) int64 { return x >> uint64(s) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// apply computes op on operand values; Bool values are 0 and 1.
func apply(op Op, a, b, c int64) int64 {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		return div(a, b)
	case OpRem:
		return rem(a, b)
	case OpNeg:
		return -a
	case OpAnd:
		return a & b
	case OpOr:
		return a | b
	case OpXor:
		return a ^ b
	case OpShl:
		return shl(a, b)
	case OpShr:
		return shr(a, b)
	case OpIte:
		if a != 0 {
			return b
		}
		return c
	case OpEq:
		return b2i(a == b)
	case OpLt:
		return b2i(a < b)
	case OpLe:
		return b2i(a <= b)
	case OpNot:
		return 1 - a
	case OpBAnd:
		return a & b
	case OpBOr:
		return a | b
	}
	panic("sym: apply of " + op.String())
}

const (
	minInt = math.MinInt64
	maxInt = math.MaxInt64
)
