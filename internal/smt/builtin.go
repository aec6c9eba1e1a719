package smt

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"weft.dev/weft/internal/sym"
)

// builtin decides parts by bit-blasting them into a fresh gini instance.
type builtin struct{}

func newBuiltin() *builtin { return &builtin{} }

func (*builtin) close() error { return nil }

func (*builtin) solve(tab *sym.Table, terms []sym.Term, vars []int, least bool) (outcome, error) {
	s, err := newGiniSession(tab, terms, vars)
	if err != nil {
		return outcome{}, err
	}
	if s == nil {
		return outcome{res: Unsat}, nil
	}
	if !least {
		return firstModel(s)
	}
	return leastModel(s, len(vars), probeKeys(tab, terms))
}

// newGiniSession bit-blasts a part into a fresh gini instance. It returns
// nil if the part is unsatisfiable by construction.
func newGiniSession(tab *sym.Table, terms []sym.Term, vars []int) (*giniSession, error) {
	g := gini.New()
	b := &blaster{
		c:     newCircuit(g),
		tab:   tab,
		words: make(map[sym.Term][]z.Lit),
		bools: make(map[sym.Term]z.Lit),
	}
	// Variables first, so their literals do not depend on term order.
	b.ids = vars
	b.vars = make([][]z.Lit, len(vars))
	b.pinned = make(map[int][]z.Lit)
	for i := range vars {
		b.vars[i] = b.c.freshWord()
	}
	// A conjunct x == k pins x: the circuits see the constant k, which
	// folds them, and x's bits are forced to k for the model.
	for _, t := range terms {
		n := tab.Node(t)
		if n.Op != sym.OpEq {
			continue
		}
		id, isVar := tab.IsVar(n.Args[0])
		k, isConst := tab.IsConst(n.Args[1])
		if i, ok := slices.BinarySearch(vars, id); isVar && isConst && ok {
			w := b.c.constWord(k)
			b.pinned[i] = w
			for bit, m := range b.vars[i] {
				b.c.clause(b.c.xor(m, w[bit]).Not())
			}
		}
	}
	if err := b.blast(terms); err != nil {
		return nil, err
	}
	for _, t := range terms {
		m := b.bools[t]
		if m == b.c.f {
			return nil, nil
		}
		b.c.clause(m)
	}
	return &giniSession{g: g, c: b.c, vars: b.vars}, nil
}

// blaster translates terms to circuits.
type blaster struct {
	c      *circuit
	tab    *sym.Table
	ids    []int                // the part's variables, sorted
	vars   [][]z.Lit            // the bits of each variable in ids
	pinned map[int][]z.Lit      // constant words of variables equal to constants, by index in ids
	words  map[sym.Term][]z.Lit // Int terms
	bools  map[sym.Term]z.Lit   // Bool terms
	divs   map[[2]sym.Term][2][]z.Lit
}

// blast translates the DAG below terms, operands first.
func (b *blaster) blast(terms []sym.Term) error {
	for _, t := range subterms(b.tab, terms) {
		if err := b.term(t); err != nil {
			return err
		}
	}
	return nil
}

func (b *blaster) term(t sym.Term) error {
	c := b.c
	n := b.tab.Node(t)
	w := func(i int) []z.Lit { return b.words[n.Args[i]] }
	p := func(i int) z.Lit { return b.bools[n.Args[i]] }
	switch n.Op {
	case sym.OpFalse:
		b.bools[t] = c.f
	case sym.OpTrue:
		b.bools[t] = c.t
	case sym.OpConst:
		b.words[t] = c.constWord(n.Value)
	case sym.OpVar:
		i, ok := slices.BinarySearch(b.ids, int(n.Value))
		if !ok {
			return fmt.Errorf("smt: variable x%d missing from the variables of its part", n.Value)
		}
		b.words[t] = b.vars[i]
		if w, ok := b.pinned[i]; ok {
			b.words[t] = w
		}
	case sym.OpAdd:
		b.words[t] = c.add(w(0), w(1))
	case sym.OpSub:
		b.words[t] = c.sub(w(0), w(1))
	case sym.OpMul:
		b.words[t] = c.mul(w(0), w(1))
	case sym.OpDiv:
		b.words[t] = b.divrem(n.Args[0], n.Args[1])[0]
	case sym.OpRem:
		b.words[t] = b.divrem(n.Args[0], n.Args[1])[1]
	case sym.OpNeg:
		b.words[t] = c.condNeg(w(0), c.t)
	case sym.OpAnd:
		b.words[t] = c.bitwise(w(0), w(1), c.and)
	case sym.OpOr:
		b.words[t] = c.bitwise(w(0), w(1), c.or)
	case sym.OpXor:
		b.words[t] = c.bitwise(w(0), w(1), c.xor)
	case sym.OpShl:
		b.words[t] = c.shift(w(0), w(1), true)
	case sym.OpShr:
		b.words[t] = c.shift(w(0), w(1), false)
	case sym.OpIte:
		b.words[t] = c.ite(p(0), w(1), w(2))
	case sym.OpEq:
		b.bools[t] = c.eq(w(0), w(1))
	case sym.OpLt:
		b.bools[t] = c.slt(w(0), w(1))
	case sym.OpLe:
		b.bools[t] = c.slt(w(1), w(0)).Not()
	case sym.OpNot:
		b.bools[t] = p(0).Not()
	case sym.OpBAnd:
		b.bools[t] = c.and(p(0), p(1))
	case sym.OpBOr:
		b.bools[t] = c.or(p(0), p(1))
	default:
		return fmt.Errorf("smt: cannot translate operation %v", n.Op)
	}
	return nil
}

// divrem shares one divider between the Div and Rem of the same operands.
func (b *blaster) divrem(x, y sym.Term) [2][]z.Lit {
	k := [2]sym.Term{x, y}
	if r, ok := b.divs[k]; ok {
		return r
	}
	if b.divs == nil {
		b.divs = make(map[[2]sym.Term][2][]z.Lit)
	}
	q, r := b.c.sdivrem(b.words[x], b.words[y])
	b.divs[k] = [2][]z.Lit{q, r}
	return b.divs[k]
}

// giniSession fixes bits with unit clauses, which is sound because a
// session's instance is discarded afterwards, and tries constraints with
// gini's assumptions, which last for one Solve.
type giniSession struct {
	g    *gini.Gini
	c    *circuit
	vars [][]z.Lit
}

// lits returns literals whose conjunction is c.
func (s *giniSession) lits(c constraint) []z.Lit {
	x := s.vars[c.v]
	if c.lo == c.hi {
		ms := make([]z.Lit, width)
		for bit, m := range x {
			if c.lo>>bit&1 == 0 {
				m = m.Not()
			}
			ms[bit] = m
		}
		return ms
	}
	var ms []z.Lit
	if c.lo != math.MinInt64 {
		ms = append(ms, s.c.slt(x, s.c.constWord(c.lo)).Not())
	}
	if c.hi != math.MaxInt64 {
		ms = append(ms, s.c.slt(s.c.constWord(c.hi), x).Not())
	}
	return ms
}

func (s *giniSession) check(trial *constraint) (Result, []int64, error) {
	if trial != nil {
		s.g.Assume(s.lits(*trial)...)
	}
	switch s.g.Solve() {
	case 1:
	case -1:
		return Unsat, nil, nil
	default:
		return Unknown, nil, nil
	}
	vals := make([]int64, len(s.vars))
	for i, w := range s.vars {
		for bit, m := range w {
			if s.g.Value(m) {
				vals[i] |= 1 << bit
			}
		}
	}
	return Sat, vals, nil
}

func (s *giniSession) fix(c constraint) error {
	for _, m := range s.lits(c) {
		s.c.clause(m)
	}
	return nil
}
