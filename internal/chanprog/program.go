package chanprog

import (
	"fmt"
	"strings"
)

// NumRegs is the number of int64 registers (r0, r1, r2) of every goroutine;
// each goroutine also has one bool register, ok.
const NumRegs = 3

// Kind is the kind of a statement.
type Kind uint8

// The statements. Chan, Obj, Reg, OK, Val, Cond, N, Body, Else, Cases and
// Default of Stmt are used as each comment says; the other fields are zero.
const (
	Send     Kind = iota // c[Chan] <- Val
	Recv                 // r[Reg], ok = <-c[Chan] (OK), r[Reg] = <-c[Chan], or <-c[Chan] (Reg < 0)
	Close                // close(c[Chan])
	Len                  // r[Reg] = len(c[Chan])
	SetNil               // c[Chan] = nil: the goroutine's own copy only
	Select               // select { Cases...; default: Default (if HasDefault) }
	If                   // if Cond { Body } else { Else }
	For                  // for i := 0; i < N; i++ { Body }
	Range                // for i := 0; i < N; i++ { r[Reg], ok = <-c[Chan]; if !ok { break }; Body }
	Break                // break the innermost loop
	Continue             // continue the innermost loop
	Return               // return from the goroutine
	Assert               // assert(Cond): a bug when Cond is false
	Load                 // r[Reg] = x[Obj].Load()
	Store                // x[Obj].Store(Val)
	Add                  // r[Reg] = x[Obj].Add(Val)
	VarLoad              // r[Reg] = v[Obj] (plain shared memory)
	VarStore             // v[Obj] = Val
	numKinds
)

var kindNames = [numKinds]string{"send", "recv", "close", "len", "setnil", "select", "if", "for", "range",
	"break", "continue", "return", "assert", "load", "store", "add", "varload", "varstore"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Expr is a value: Const, or r[Reg] + Const when Reg >= 0.
type Expr struct {
	Reg   int
	Const int64
}

// K is the constant expression k.
func K(k int64) Expr { return Expr{Reg: -1, Const: k} }

// R is the expression r[reg] + k.
func R(reg int, k int64) Expr { return Expr{Reg: reg, Const: k} }

func (e Expr) String() string {
	switch {
	case e.Reg < 0:
		return fmt.Sprint(e.Const)
	case e.Const == 0:
		return fmt.Sprintf("r%d", e.Reg)
	case e.Const < 0:
		return fmt.Sprintf("r%d-%d", e.Reg, -e.Const)
	}
	return fmt.Sprintf("r%d+%d", e.Reg, e.Const)
}

// CondKind is the kind of a condition.
type CondKind uint8

// The conditions of If and Assert.
const (
	Eq       CondKind = iota // r[Reg] == Const
	Ne                       // r[Reg] != Const
	Gt                       // r[Reg] > Const
	OK                       // ok
	NotOK                    // !ok
	AtomicEq                 // x[Obj].Load() == Const: an operation of its own
	AtomicNe                 // x[Obj].Load() != Const: an operation of its own
	numConds
)

// Cond is a condition over the registers, or an atomic load compared to a
// constant.
type Cond struct {
	Kind  CondKind
	Reg   int
	Obj   int
	Const int64
}

func (c Cond) String() string {
	switch c.Kind {
	case Eq:
		return fmt.Sprintf("r%d == %d", c.Reg, c.Const)
	case Ne:
		return fmt.Sprintf("r%d != %d", c.Reg, c.Const)
	case Gt:
		return fmt.Sprintf("r%d > %d", c.Reg, c.Const)
	case OK:
		return "ok"
	case NotOK:
		return "!ok"
	case AtomicEq:
		return fmt.Sprintf("x%d.Load() == %d", c.Obj, c.Const)
	case AtomicNe:
		return fmt.Sprintf("x%d.Load() != %d", c.Obj, c.Const)
	}
	return fmt.Sprintf("Cond(%d)", c.Kind)
}

// ops is the number of shared-memory operations evaluating c takes.
func (c Cond) ops() int {
	if c.Kind == AtomicEq || c.Kind == AtomicNe {
		return 1
	}
	return 0
}

// Stmt is a statement. See Kind for the fields each kind uses.
type Stmt struct {
	Kind       Kind
	Chan       int
	Obj        int
	Reg        int
	OK         bool
	Val        Expr
	Cond       Cond
	N          int
	Body       []Stmt
	Else       []Stmt
	Cases      []Case
	Default    []Stmt
	HasDefault bool
}

// Case is a case of a select: "c[Chan] <- Val" when Send, else a receive
// in the forms of Recv.
type Case struct {
	Send bool
	Chan int
	Val  Expr
	Reg  int
	OK   bool
	Body []Stmt
}

// ChanDecl declares a shared channel: make(chan int64, Cap), or a nil
// channel when Nil.
type ChanDecl struct {
	Cap int
	Nil bool
}

// Program is a channel program: the body (Goroutines[0], g0) starts the
// other goroutines at its beginning, runs its statements and, unless it
// returned early, waits for the goroutines of Wait in that order.
//
// All goroutines share the channels, the atomic int64s x0.. and the plain
// int64s v0..; each has its own copy of every channel variable (SetNil
// changes only that copy), registers r0..r2 and ok, all zero at its start.
type Program struct {
	Chans      []ChanDecl
	Atomics    int
	Vars       int
	Goroutines [][]Stmt
	Wait       []int
}

// UsesVars reports whether p accesses plain shared memory, which RunReal
// refuses: an unsynchronized access is a data race, undefined in Go.
func (p *Program) UsesVars() bool {
	found := false
	for _, g := range p.Goroutines {
		walk(g, func(s *Stmt) {
			if s.Kind == VarLoad || s.Kind == VarStore {
				found = true
			}
		})
	}
	return found
}

// walk calls f for every statement of ss, nested ones included.
func walk(ss []Stmt, f func(*Stmt)) {
	for i := range ss {
		s := &ss[i]
		f(s)
		walk(s.Body, f)
		walk(s.Else, f)
		walk(s.Default, f)
		for _, c := range s.Cases {
			walk(c.Body, f)
		}
	}
}

// MaxOps bounds the number of operations on shared objects (channel and
// atomic operations, Var accesses, selects, and the body's waits) that any
// execution of p performs: the cost of exploring p.
func (p *Program) MaxOps() int {
	n := len(p.Wait)
	for _, g := range p.Goroutines {
		n += blockOps(g)
	}
	return n
}

// blockOps bounds the operations of one execution of ss.
func blockOps(ss []Stmt) int {
	n := 0
	for i := range ss {
		n += stmtOps(&ss[i])
	}
	return n
}

func stmtOps(s *Stmt) int {
	switch s.Kind {
	case Send, Recv, Close, Len, Load, Store, Add, VarLoad, VarStore:
		return 1
	case Select:
		m := 0
		if s.HasDefault {
			m = blockOps(s.Default)
		}
		for _, c := range s.Cases {
			m = max(m, blockOps(c.Body))
		}
		return 1 + m
	case If:
		return s.Cond.ops() + max(blockOps(s.Body), blockOps(s.Else))
	case For:
		return s.N * blockOps(s.Body)
	case Range:
		return s.N * (1 + blockOps(s.Body))
	case Assert:
		return s.Cond.ops()
	}
	return 0
}

// Validate reports the first way in which p is not a program the runners
// accept: an index out of range, a break or continue outside a loop, a
// loop bound above MaxLoop, or a goroutine started twice or waited for by
// itself. Programs from Generate and FromBytes are valid.
func (p *Program) Validate() error {
	if len(p.Goroutines) == 0 {
		return fmt.Errorf("chanprog: no body")
	}
	if len(p.Chans) == 0 {
		return fmt.Errorf("chanprog: no channel")
	}
	for i, c := range p.Chans {
		if c.Cap < 0 {
			return fmt.Errorf("chanprog: c%d has capacity %d", i, c.Cap)
		}
	}
	for _, w := range p.Wait {
		if w < 1 || w >= len(p.Goroutines) {
			return fmt.Errorf("chanprog: the body waits for g%d", w)
		}
	}
	for g, ss := range p.Goroutines {
		if err := p.validBlock(ss, false); err != nil {
			return fmt.Errorf("chanprog: g%d: %v", g, err)
		}
	}
	return nil
}

func (p *Program) validBlock(ss []Stmt, inLoop bool) error {
	for i := range ss {
		if err := p.validStmt(&ss[i], inLoop); err != nil {
			return err
		}
	}
	return nil
}

func (p *Program) validStmt(s *Stmt, inLoop bool) error {
	chanOK := func(c int) error {
		if c < 0 || c >= len(p.Chans) {
			return fmt.Errorf("%v: no channel c%d", s.Kind, c)
		}
		return nil
	}
	regOK := func(r int, discard bool) error {
		if r >= NumRegs || r < 0 && !discard {
			return fmt.Errorf("%v: no register r%d", s.Kind, r)
		}
		return nil
	}
	exprOK := func(e Expr) error {
		if e.Reg >= NumRegs {
			return fmt.Errorf("%v: no register r%d", s.Kind, e.Reg)
		}
		return nil
	}
	switch s.Kind {
	case Send:
		if err := exprOK(s.Val); err != nil {
			return err
		}
		return chanOK(s.Chan)
	case Recv:
		if err := regOK(s.Reg, !s.OK); err != nil {
			return err
		}
		return chanOK(s.Chan)
	case Close, SetNil:
		return chanOK(s.Chan)
	case Len:
		if err := regOK(s.Reg, false); err != nil {
			return err
		}
		return chanOK(s.Chan)
	case Select:
		if len(s.Cases) == 0 && !s.HasDefault {
			return fmt.Errorf("select without cases")
		}
		for _, c := range s.Cases {
			if err := chanOK(c.Chan); err != nil {
				return err
			}
			if c.Send {
				if err := exprOK(c.Val); err != nil {
					return err
				}
			} else if err := regOK(c.Reg, !c.OK); err != nil {
				return err
			}
			if err := p.validBlock(c.Body, inLoop); err != nil {
				return err
			}
		}
		return p.validBlock(s.Default, inLoop)
	case If, Assert:
		if err := p.validCond(s.Cond); err != nil {
			return err
		}
		if err := p.validBlock(s.Body, inLoop); err != nil {
			return err
		}
		return p.validBlock(s.Else, inLoop)
	case For:
		if s.N < 0 || s.N > MaxLoop {
			return fmt.Errorf("for: %d iterations", s.N)
		}
		return p.validBlock(s.Body, true)
	case Range:
		if s.N < 0 || s.N > MaxLoop {
			return fmt.Errorf("range: %d iterations", s.N)
		}
		if err := regOK(s.Reg, false); err != nil {
			return err
		}
		if err := chanOK(s.Chan); err != nil {
			return err
		}
		return p.validBlock(s.Body, true)
	case Break, Continue:
		if !inLoop {
			return fmt.Errorf("%v outside a loop", s.Kind)
		}
	case Return:
	case Load, Store, Add:
		if s.Obj < 0 || s.Obj >= p.Atomics {
			return fmt.Errorf("%v: no atomic x%d", s.Kind, s.Obj)
		}
		if err := exprOK(s.Val); err != nil {
			return err
		}
		if s.Kind != Store {
			return regOK(s.Reg, false)
		}
	case VarLoad, VarStore:
		if s.Obj < 0 || s.Obj >= p.Vars {
			return fmt.Errorf("%v: no var v%d", s.Kind, s.Obj)
		}
		if err := exprOK(s.Val); err != nil {
			return err
		}
		if s.Kind == VarLoad {
			return regOK(s.Reg, false)
		}
	default:
		return fmt.Errorf("unknown statement %v", s.Kind)
	}
	return nil
}

func (p *Program) validCond(c Cond) error {
	switch c.Kind {
	case Eq, Ne, Gt:
		if c.Reg < 0 || c.Reg >= NumRegs {
			return fmt.Errorf("condition on r%d", c.Reg)
		}
	case OK, NotOK:
	case AtomicEq, AtomicNe:
		if c.Obj < 0 || c.Obj >= p.Atomics {
			return fmt.Errorf("condition on x%d", c.Obj)
		}
	default:
		return fmt.Errorf("unknown condition %d", c.Kind)
	}
	return nil
}

// String returns p in a compact Go-like form: its objects, then each
// goroutine's statements.
func (p *Program) String() string {
	var b strings.Builder
	for i, c := range p.Chans {
		if c.Nil {
			fmt.Fprintf(&b, "c%d nil; ", i)
		} else {
			fmt.Fprintf(&b, "c%d cap %d; ", i, c.Cap)
		}
	}
	fmt.Fprintf(&b, "atomics %d; vars %d\n", p.Atomics, p.Vars)
	for g, ss := range p.Goroutines {
		fmt.Fprintf(&b, "g%d:\n", g)
		w := &printer{b: &b, depth: 1}
		w.block(ss)
		if g == 0 {
			for _, k := range p.Wait {
				w.line("join g%d", k)
			}
		}
	}
	return b.String()
}
