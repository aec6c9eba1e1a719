package chanprog

import (
	"fmt"
	"strings"
)

// The Go names of the statement and condition kinds, for literal.
var (
	kindIdents = [numKinds]string{"Send", "Recv", "Close", "Len", "SetNil", "Select", "If", "For", "Range",
		"Break", "Continue", "Return", "Assert", "Load", "Store", "Add", "VarLoad", "VarStore"}
	condIdents = [numConds]string{"Eq", "Ne", "Gt", "OK", "NotOK", "AtomicEq", "AtomicNe"}
)

// literal returns p as a Go expression in the terms of the builders of
// helpers_test.go, so that a program a run found, shrunk, can be pasted
// into a table of tests.
func literal(p *Program) string {
	var caps []string
	for _, c := range p.Chans {
		if c.Nil {
			caps = append(caps, "-1")
		} else {
			caps = append(caps, fmt.Sprint(c.Cap))
		}
	}
	cs := "chans(" + strings.Join(caps, ", ") + ")"
	var gs []string
	for _, ss := range p.Goroutines {
		gs = append(gs, blockLit(ss))
	}
	if p.Atomics == 0 && p.Vars == 0 {
		wait := "nil"
		if len(p.Wait) > 0 {
			wait = fmt.Sprintf("%#v", p.Wait)
		}
		return fmt.Sprintf("prog(%s, %s,\n\t%s)", cs, wait, strings.Join(gs, ",\n\t"))
	}
	fields := []string{"Chans: " + cs}
	if p.Atomics > 0 {
		fields = append(fields, fmt.Sprintf("Atomics: %d", p.Atomics))
	}
	if p.Vars > 0 {
		fields = append(fields, fmt.Sprintf("Vars: %d", p.Vars))
	}
	fields = append(fields, "Goroutines: [][]Stmt{\n\t"+strings.Join(gs, ",\n\t")+"}")
	if len(p.Wait) > 0 {
		fields = append(fields, fmt.Sprintf("Wait: %#v", p.Wait))
	}
	return "&Program{" + strings.Join(fields, ", ") + "}"
}

func blockLit(ss []Stmt) string {
	var parts []string
	for i := range ss {
		parts = append(parts, stmtLit(&ss[i]))
	}
	return "block(" + strings.Join(parts, ", ") + ")"
}

func exprLit(e Expr) string {
	if e.Reg < 0 {
		return fmt.Sprintf("K(%d)", e.Const)
	}
	return fmt.Sprintf("R(%d, %d)", e.Reg, e.Const)
}

func condLit(c Cond) string {
	f := []string{"Kind: " + condIdents[c.Kind]}
	if c.Reg != 0 {
		f = append(f, fmt.Sprintf("Reg: %d", c.Reg))
	}
	if c.Obj != 0 {
		f = append(f, fmt.Sprintf("Obj: %d", c.Obj))
	}
	if c.Const != 0 {
		f = append(f, fmt.Sprintf("Const: %d", c.Const))
	}
	return "Cond{" + strings.Join(f, ", ") + "}"
}

// stmtLit writes s with a builder when one makes exactly s, else as a
// Stmt literal of its fields that are not zero.
func stmtLit(s *Stmt) string {
	// rest is s without the fields a builder sets: it must be zero.
	rest := *s
	rest.Kind, rest.Chan = 0, 0
	switch s.Kind {
	case Send:
		rest.Val = Expr{}
		if s.Val.Reg < 0 && zeroStmt(rest) {
			return fmt.Sprintf("send(%d, %d)", s.Chan, s.Val.Const)
		}
	case Recv:
		rest.Reg, rest.OK = 0, false
		if s.OK && zeroStmt(rest) {
			return fmt.Sprintf("recv(%d, %d)", s.Chan, s.Reg)
		}
	case Close:
		if zeroStmt(rest) {
			return fmt.Sprintf("closeC(%d)", s.Chan)
		}
	case Assert:
		rest.Cond = Cond{}
		if s.Chan == 0 && zeroStmt(rest) {
			return "assertS(" + condLit(s.Cond) + ")"
		}
	case If:
		rest.Cond, rest.Body, rest.Else = Cond{}, nil, nil
		if s.Chan == 0 && zeroStmt(rest) {
			var els []string
			for i := range s.Else {
				els = append(els, ", "+stmtLit(&s.Else[i]))
			}
			return "ifS(" + condLit(s.Cond) + ", " + blockLit(s.Body) + strings.Join(els, "") + ")"
		}
	case Select:
		rest.Cases, rest.HasDefault = nil, false
		if s.Chan == 0 && zeroStmt(rest) {
			cs := []string{fmt.Sprint(s.HasDefault)}
			for _, c := range s.Cases {
				cs = append(cs, "Case"+caseLit(c))
			}
			return "sel(" + strings.Join(cs, ", ") + ")"
		}
	}
	var f []string
	add := func(format string, args ...any) { f = append(f, fmt.Sprintf(format, args...)) }
	add("Kind: %s", kindIdents[s.Kind])
	if s.Chan != 0 {
		add("Chan: %d", s.Chan)
	}
	if s.Obj != 0 {
		add("Obj: %d", s.Obj)
	}
	if s.Reg != 0 {
		add("Reg: %d", s.Reg)
	}
	if s.OK {
		add("OK: true")
	}
	if s.Val != (Expr{}) {
		add("Val: %s", exprLit(s.Val))
	}
	if s.Cond != (Cond{}) {
		add("Cond: %s", condLit(s.Cond))
	}
	if s.N != 0 {
		add("N: %d", s.N)
	}
	if s.Body != nil {
		add("Body: %s", blockLit(s.Body))
	}
	if s.Else != nil {
		add("Else: %s", blockLit(s.Else))
	}
	if s.Cases != nil {
		var cs []string
		for _, c := range s.Cases {
			cs = append(cs, caseLit(c))
		}
		add("Cases: []Case{%s}", strings.Join(cs, ", "))
	}
	if s.Default != nil {
		add("Default: %s", blockLit(s.Default))
	}
	if s.HasDefault {
		add("HasDefault: true")
	}
	return "Stmt{" + strings.Join(f, ", ") + "}"
}

func caseLit(c Case) string {
	var f []string
	if c.Send {
		f = append(f, "Send: true")
	}
	if c.Chan != 0 {
		f = append(f, fmt.Sprintf("Chan: %d", c.Chan))
	}
	if c.Send && c.Val != (Expr{}) {
		f = append(f, "Val: "+exprLit(c.Val))
	}
	if c.Reg != 0 {
		f = append(f, fmt.Sprintf("Reg: %d", c.Reg))
	}
	if c.OK {
		f = append(f, "OK: true")
	}
	if c.Body != nil {
		f = append(f, "Body: "+blockLit(c.Body))
	}
	return "{" + strings.Join(f, ", ") + "}"
}

// zeroStmt reports whether every field of s is zero.
func zeroStmt(s Stmt) bool {
	return s.Kind == 0 && s.Chan == 0 && s.Obj == 0 && s.Reg == 0 && !s.OK && s.Val == (Expr{}) &&
		s.Cond == (Cond{}) && s.N == 0 && s.Body == nil && s.Else == nil && s.Cases == nil &&
		s.Default == nil && !s.HasDefault
}
