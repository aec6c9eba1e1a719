package sym

import (
	"strconv"
	"strings"
)

// maxStringLen bounds String's output: a DAG with shared subterms can
// denote an exponentially large tree, and String is for diagnostics.
const maxStringLen = 4096

// String returns x in Go-like infix notation with every compound operand
// parenthesized, such as (x0 + 3) < x1. Variables print as x<id>; Ne prints
// as !=. Output longer than a few kilobytes is cut off with "...".
func (t *Table) String(x Term) string {
	p := printer{t: t}
	p.term(x, false)
	if p.b.Len() > maxStringLen {
		return p.b.String()[:maxStringLen] + "..."
	}
	return p.b.String()
}

type printer struct {
	t *Table
	b strings.Builder
}

func (p *printer) term(x Term, paren bool) {
	if p.b.Len() > maxStringLen {
		return
	}
	n := p.t.node(x)
	switch n.Op {
	case OpFalse, OpTrue:
		p.b.WriteString(n.Op.String())
		return
	case OpConst:
		p.b.WriteString(strconv.FormatInt(n.Value, 10))
		return
	case OpVar:
		p.b.WriteByte('x')
		p.b.WriteString(strconv.FormatInt(n.Value, 10))
		return
	case OpIte:
		p.b.WriteString("ite(")
		p.term(n.Args[0], false)
		p.b.WriteString(", ")
		p.term(n.Args[1], false)
		p.b.WriteString(", ")
		p.term(n.Args[2], false)
		p.b.WriteString(")")
		return
	}
	if paren {
		p.b.WriteByte('(')
	}
	switch {
	case n.Op == OpNot && p.t.Op(n.Args[0]) == OpEq:
		eq := p.t.node(n.Args[0])
		p.term(eq.Args[0], true)
		p.b.WriteString(" != ")
		p.term(eq.Args[1], true)
	case n.Op.Arity() == 1:
		p.b.WriteString(n.Op.String())
		p.term(n.Args[0], true)
	default:
		p.term(n.Args[0], true)
		p.b.WriteByte(' ')
		p.b.WriteString(n.Op.String())
		p.b.WriteByte(' ')
		p.term(n.Args[1], true)
	}
	if paren {
		p.b.WriteByte(')')
	}
}
