package smt

import (
	"math"
	"math/bits"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// circuit builds gates as CNF clauses in a gini instance (Tseitin
// encoding). Gates with constant or related inputs fold away, and each
// remaining gate is created once per distinct inputs (structural hashing),
// so constant operands shrink the arithmetic circuits to what they need.
type circuit struct {
	g     *gini.Gini
	t, f  z.Lit
	gates map[gate]z.Lit
}

type gateKind uint8

const (
	andGate gateKind = iota
	xorGate
	muxGate
)

type gate struct {
	kind    gateKind
	a, b, c z.Lit
}

func newCircuit(g *gini.Gini) *circuit {
	c := &circuit{g: g, gates: make(map[gate]z.Lit)}
	c.t = g.Lit()
	c.clause(c.t)
	c.f = c.t.Not()
	return c
}

func (c *circuit) clause(ms ...z.Lit) {
	for _, m := range ms {
		c.g.Add(m)
	}
	c.g.Add(z.LitNull)
}

func (c *circuit) lookup(k gate) (z.Lit, bool) {
	g, ok := c.gates[k]
	if !ok {
		g = c.g.Lit()
		c.gates[k] = g
	}
	return g, ok
}

func (c *circuit) and(a, b z.Lit) z.Lit {
	switch {
	case a == c.f || b == c.f || a == b.Not():
		return c.f
	case a == c.t:
		return b
	case b == c.t || a == b:
		return a
	}
	if a > b {
		a, b = b, a
	}
	g, ok := c.lookup(gate{kind: andGate, a: a, b: b})
	if !ok {
		c.clause(g.Not(), a)
		c.clause(g.Not(), b)
		c.clause(g, a.Not(), b.Not())
	}
	return g
}

func (c *circuit) or(a, b z.Lit) z.Lit { return c.and(a.Not(), b.Not()).Not() }

func (c *circuit) xor(a, b z.Lit) z.Lit {
	switch {
	case a == c.f:
		return b
	case a == c.t:
		return b.Not()
	case b == c.f:
		return a
	case b == c.t:
		return a.Not()
	case a == b:
		return c.f
	case a == b.Not():
		return c.t
	}
	// Negations move to the output, so x^y, !x^y, ... share one gate.
	neg := !a.IsPos() != !b.IsPos()
	a, b = a.Var().Pos(), b.Var().Pos()
	if a > b {
		a, b = b, a
	}
	g, ok := c.lookup(gate{kind: xorGate, a: a, b: b})
	if !ok {
		c.clause(g.Not(), a, b)
		c.clause(g.Not(), a.Not(), b.Not())
		c.clause(g, a.Not(), b)
		c.clause(g, a, b.Not())
	}
	if neg {
		return g.Not()
	}
	return g
}

// mux returns s ? t : e.
func (c *circuit) mux(s, t, e z.Lit) z.Lit {
	switch {
	case s == c.t:
		return t
	case s == c.f:
		return e
	case t == e:
		return t
	case t == e.Not():
		return c.xor(s, e)
	case t == c.t || t == s:
		return c.or(s, e)
	case t == c.f || t == s.Not():
		return c.and(s.Not(), e)
	case e == c.f || e == s:
		return c.and(s, t)
	case e == c.t || e == s.Not():
		return c.or(s.Not(), t)
	}
	if !s.IsPos() {
		s, t, e = s.Not(), e, t
	}
	neg := !t.IsPos()
	if neg {
		t, e = t.Not(), e.Not()
	}
	g, ok := c.lookup(gate{kind: muxGate, a: s, b: t, c: e})
	if !ok {
		c.clause(s.Not(), t.Not(), g)
		c.clause(s.Not(), t, g.Not())
		c.clause(s, e.Not(), g)
		c.clause(s, e, g.Not())
		// Redundant, but lets propagation settle g when t and e agree.
		c.clause(t.Not(), e.Not(), g)
		c.clause(t, e, g.Not())
	}
	if neg {
		return g.Not()
	}
	return g
}

// Words are slices of literals, least significant bit first.

const width = 64

func (c *circuit) constWord(v int64) []z.Lit {
	w := make([]z.Lit, width)
	for i := range w {
		w[i] = c.f
		if v>>i&1 == 1 {
			w[i] = c.t
		}
	}
	return w
}

func (c *circuit) freshWord() []z.Lit {
	w := make([]z.Lit, width)
	for i := range w {
		w[i] = c.g.Lit()
	}
	return w
}

func not(a []z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i, m := range a {
		r[i] = m.Not()
	}
	return r
}

func (c *circuit) bitwise(a, b []z.Lit, op func(x, y z.Lit) z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i := range a {
		r[i] = op(a[i], b[i])
	}
	return r
}

// addCarry returns a + b + cin over len(a) bits (a ripple-carry adder) and
// the carry out.
func (c *circuit) addCarry(a, b []z.Lit, cin z.Lit) ([]z.Lit, z.Lit) {
	sum := make([]z.Lit, len(a))
	carry := cin
	for i := range a {
		x := c.xor(a[i], b[i])
		sum[i] = c.xor(x, carry)
		carry = c.or(c.and(a[i], b[i]), c.and(carry, x))
	}
	return sum, carry
}

// add returns a + b modulo 2^len(a), without building the carry out.
func (c *circuit) add(a, b []z.Lit) []z.Lit {
	sum := make([]z.Lit, len(a))
	carry := c.f
	for i := range a {
		x := c.xor(a[i], b[i])
		sum[i] = c.xor(x, carry)
		if i+1 < len(a) {
			carry = c.or(c.and(a[i], b[i]), c.and(carry, x))
		}
	}
	return sum
}

// subBorrow returns a - b and whether a < b as unsigned numbers.
func (c *circuit) subBorrow(a, b []z.Lit) ([]z.Lit, z.Lit) {
	d, carry := c.addCarry(a, not(b), c.t)
	return d, carry.Not()
}

func (c *circuit) sub(a, b []z.Lit) []z.Lit {
	d, _ := c.addCarry(a, not(b), c.t)
	return d
}

// condNeg returns s ? -a : a, computed as (a ^ s) + s.
func (c *circuit) condNeg(a []z.Lit, s z.Lit) []z.Lit {
	x := make([]z.Lit, len(a))
	zero := make([]z.Lit, len(a))
	for i := range a {
		x[i] = c.xor(a[i], s)
		zero[i] = c.f
	}
	sum, _ := c.addCarry(x, zero, s)
	return sum
}

// constValue returns the value of a word whose bits are all constant.
func (c *circuit) constValue(a []z.Lit) (uint64, bool) {
	var v uint64
	for i, m := range a {
		switch m {
		case c.t:
			v |= 1 << i
		case c.f:
		default:
			return 0, false
		}
	}
	return v, true
}

// mul returns the low 64 bits of a * b. A constant factor is recoded in
// non-adjacent form, a sum of signed powers of two with the fewest
// non-zero digits, so multiplying by it takes one adder or subtractor per
// digit (one for -8, where plain binary would need 61). Otherwise a
// shift-add multiplier adds a << i for each bit i of b, computing only the
// bits below 64 of each row.
func (c *circuit) mul(a, b []z.Lit) []z.Lit {
	if _, ok := c.constValue(a); ok {
		a, b = b, a
	}
	acc := c.constWord(0)
	if k, ok := c.constValue(b); ok {
		for i := range width {
			if k&1 == 0 {
				k >>= 1
				continue
			}
			// The digit is 1 if k is 1 mod 4 and -1 if it is 3 mod 4;
			// either way k - digit is divisible by 4.
			row := a[:width-i]
			if k&3 == 1 {
				copy(acc[i:], c.add(acc[i:], row))
				k--
			} else {
				copy(acc[i:], c.sub(acc[i:], row))
				k++
			}
			k >>= 1
		}
		return acc
	}
	for i := range width {
		if b[i] == c.f {
			continue
		}
		row := make([]z.Lit, width-i)
		for j := range row {
			row[j] = c.and(a[j], b[i])
		}
		copy(acc[i:], c.add(acc[i:], row))
	}
	return acc
}

// udivrem returns the unsigned quotient and remainder of n / d by
// restoring division, with SMT-LIB's bvudiv/bvurem results for d == 0
// (quotient all ones, remainder n). At step k the partial remainder is
// below 2^(k+1), so the trial subtraction needs only k+1 bits, and it can
// only succeed when the bits of d above k are all zero.
func (c *circuit) udivrem(n, d []z.Lit) ([]z.Lit, []z.Lit) {
	q := make([]z.Lit, width)
	highZero := make([]z.Lit, width) // highZero[k]: d has no set bit above k
	highZero[width-1] = c.t
	for k := width - 2; k >= 0; k-- {
		highZero[k] = c.and(highZero[k+1], d[k+1].Not())
	}
	var rem []z.Lit
	for k := range width {
		i := width - 1 - k
		sh := append([]z.Lit{n[i]}, rem...)
		diff, borrow := c.subBorrow(sh, d[:k+1])
		qi := c.and(highZero[k], borrow.Not())
		q[i] = qi
		rem = make([]z.Lit, k+1)
		for j := range rem {
			rem[j] = c.mux(qi, diff[j], sh[j])
		}
	}
	return q, rem
}

// udivremConst returns the unsigned quotient and remainder of n / d for a
// constant d. Instead of a divider it introduces the quotient q and the
// remainder r as fresh words constrained by n = q*d + r without overflow
// and r < d, which determine them; the multiplication by a constant is
// cheap, and SAT solvers handle this relation far better than a divider
// circuit. Division by a power of two is wiring, and by zero follows
// SMT-LIB bvudiv/bvurem.
func (c *circuit) udivremConst(n []z.Lit, d uint64) ([]z.Lit, []z.Lit) {
	switch {
	case d == 0:
		return c.constWord(-1), n
	case d&(d-1) == 0:
		k := bits.TrailingZeros64(d)
		q, r := c.constWord(0), c.constWord(0)
		copy(q, n[k:])
		copy(r, n[:k])
		return q, r
	}
	q, r := c.freshWord(), c.freshWord()
	c.clause(c.lt(r, c.constWord(int64(d)), false))
	c.clause(c.lt(c.constWord(int64(math.MaxUint64/d)), q, false).Not())
	sum, carry := c.addCarry(c.mul(q, c.constWord(int64(d))), r, c.f)
	c.clause(carry.Not())
	for i := range n {
		c.clause(sum[i].Not(), n[i])
		c.clause(sum[i], n[i].Not())
	}
	return q, r
}

// sdivrem returns the signed quotient (truncated) and remainder of a / b
// following SMT-LIB bvsdiv and bvsrem: the unsigned division of the
// magnitudes, with the quotient negated when the signs differ and the
// remainder taking the dividend's sign. This gives MinInt64 / -1 ==
// MinInt64 and the zero-divisor results documented in package sym.
func (c *circuit) sdivrem(a, b []z.Lit) ([]z.Lit, []z.Lit) {
	if d, ok := c.constValue(b); ok && d > 0 && d < 1<<63 && d&(d-1) == 0 {
		return c.sdivremPow2(a, bits.TrailingZeros64(d))
	}
	sa, sb := a[width-1], b[width-1]
	ua, ub := c.condNeg(a, sa), c.condNeg(b, sb)
	var uq, ur []z.Lit
	if d, ok := c.constValue(ub); ok {
		uq, ur = c.udivremConst(ua, d)
	} else {
		uq, ur = c.udivrem(ua, ub)
	}
	return c.condNeg(uq, c.xor(sa, sb)), c.condNeg(ur, sa)
}

// sdivremPow2 is sdivrem by the constant 2^k, k < 63, without the
// negations and the division of the general case: x % 2^k == 0 is how
// programs test parity, and it costs a few gates instead of thousands. The
// remainder keeps the low k bits and extends them with ones when a is
// negative and they are not all zero; the quotient is a shifted right
// arithmetically after adding 2^k-1 to a negative a (truncation toward
// zero).
func (c *circuit) sdivremPow2(a []z.Lit, k int) ([]z.Lit, []z.Lit) {
	sa := a[width-1]
	low := c.f
	for i := range k {
		low = c.or(low, a[i])
	}
	neg := c.and(sa, low)
	r := make([]z.Lit, width)
	bias := make([]z.Lit, width)
	for i := range width {
		r[i], bias[i] = neg, c.f
		if i < k {
			r[i], bias[i] = a[i], sa
		}
	}
	s := c.add(a, bias)
	q := make([]z.Lit, width)
	for i := range q {
		q[i] = s[min(i+k, width-1)]
	}
	return q, r
}

// shift returns a shifted by the unsigned amount s: left, or right filling
// with the sign bit. Stages shift by 1, 2, 4, ..., 32 under the low six
// bits of s; any higher bit of s shifts everything out.
func (c *circuit) shift(a, s []z.Lit, left bool) []z.Lit {
	fill := c.f
	if !left {
		fill = a[width-1]
	}
	x := a
	for k := range 6 {
		if s[k] == c.f {
			continue
		}
		d := 1 << k
		y := make([]z.Lit, width)
		for i := range y {
			src := fill
			switch {
			case left && i >= d:
				src = x[i-d]
			case !left && i+d < width:
				src = x[i+d]
			}
			y[i] = c.mux(s[k], src, x[i])
		}
		x = y
	}
	out := c.f
	for _, m := range s[6:] {
		out = c.or(out, m)
	}
	y := make([]z.Lit, width)
	for i := range y {
		y[i] = c.mux(out, fill, x[i])
	}
	return y
}

func (c *circuit) eq(a, b []z.Lit) z.Lit {
	r := c.t
	for i := range a {
		r = c.and(r, c.xor(a[i], b[i]).Not())
	}
	return r
}

// lt returns whether a < b, as signed or unsigned numbers: the most
// significant differing bit decides, except that at the sign bit of
// signed numbers the operand with the bit set is the smaller one.
func (c *circuit) lt(a, b []z.Lit, signed bool) z.Lit {
	less := c.f
	for i := range a {
		smaller := b[i]
		if signed && i == len(a)-1 {
			smaller = a[i]
		}
		less = c.mux(c.xor(a[i], b[i]), smaller, less)
	}
	return less
}

func (c *circuit) slt(a, b []z.Lit) z.Lit { return c.lt(a, b, true) }

func (c *circuit) ite(s z.Lit, a, b []z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i := range a {
		r[i] = c.mux(s, a[i], b[i])
	}
	return r
}
