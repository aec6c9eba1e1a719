package chanprog

// backend performs one goroutine's operations on the shared objects: under
// weft or on real Go. Channels are named by their index in Program.Chans,
// or nilChan. The one interpreter, machine, drives both, so that the two
// runs of a program cannot differ in anything but the operations.
type backend interface {
	send(c int, v int64)
	recv(c int) (int64, bool)
	close(c int)
	len(c int) int64
	// sel performs a select and returns the index of the case taken,
	// len(cases) for the default, and what a receive case received.
	sel(cases []selCase, hasDefault bool) (i int, v int64, ok bool)
	load(x int) int64
	store(x int, v int64)
	add(x int, v int64) int64
	varLoad(v int) int64
	varStore(v int, x int64)
	// assert reports a failed assert with msg when cond is false; it does
	// not return then.
	assert(cond bool, msg string)
}

// nilChan names the nil channel in backend calls.
const nilChan = -1

type selCase struct {
	send bool
	c    int
	v    int64
}

// flow is how a statement ended: normally, or by a jump to act on.
type flow uint8

const (
	next flow = iota
	brk
	cont
	ret
)

// machine runs one goroutine's statements.
type machine struct {
	g    int
	be   backend
	regs [NumRegs]int64
	ok   bool
	nils []bool // the goroutine's channel variables that are nil
}

func newMachine(p *Program, g int, be backend) *machine {
	m := &machine{g: g, be: be, nils: make([]bool, len(p.Chans))}
	for i, c := range p.Chans {
		m.nils[i] = c.Nil
	}
	return m
}

func (m *machine) ch(i int) int {
	if m.nils[i] {
		return nilChan
	}
	return i
}

func (m *machine) val(e Expr) int64 {
	if e.Reg < 0 {
		return e.Const
	}
	return m.regs[e.Reg] + e.Const
}

func (m *machine) cond(c Cond) bool {
	switch c.Kind {
	case Eq:
		return m.regs[c.Reg] == c.Const
	case Ne:
		return m.regs[c.Reg] != c.Const
	case Gt:
		return m.regs[c.Reg] > c.Const
	case OK:
		return m.ok
	case NotOK:
		return !m.ok
	case AtomicEq:
		return m.be.load(c.Obj) == c.Const
	case AtomicNe:
		return m.be.load(c.Obj) != c.Const
	}
	panic("chanprog: unknown condition")
}

// received sets the registers of a receive.
func (m *machine) received(reg int, withOK bool, v int64, ok bool) {
	if reg >= 0 {
		m.regs[reg] = v
	}
	if withOK {
		m.ok = ok
	}
}

// run runs a goroutine's statements; it reports whether they ended by a
// return statement.
func (m *machine) run(ss []Stmt) (returned bool) {
	return m.block(ss) == ret
}

func (m *machine) block(ss []Stmt) flow {
	for i := range ss {
		if f := m.stmt(&ss[i]); f != next {
			return f
		}
	}
	return next
}

// loop runs a loop body; it reports the flow of the loop statement and
// whether the loop ends.
func loopFlow(f flow) (flow, bool) {
	switch f {
	case brk:
		return next, true
	case ret:
		return ret, true
	}
	return next, false
}

func (m *machine) stmt(s *Stmt) flow {
	switch s.Kind {
	case Send:
		m.be.send(m.ch(s.Chan), m.val(s.Val))
	case Recv:
		v, ok := m.be.recv(m.ch(s.Chan))
		m.received(s.Reg, s.OK, v, ok)
	case Close:
		m.be.close(m.ch(s.Chan))
	case Len:
		m.regs[s.Reg] = m.be.len(m.ch(s.Chan))
	case SetNil:
		m.nils[s.Chan] = true
	case Select:
		cases := make([]selCase, len(s.Cases))
		for i, c := range s.Cases {
			cases[i] = selCase{send: c.Send, c: m.ch(c.Chan)}
			if c.Send {
				cases[i].v = m.val(c.Val)
			}
		}
		i, v, ok := m.be.sel(cases, s.HasDefault)
		if i == len(cases) {
			return m.block(s.Default)
		}
		c := &s.Cases[i]
		if !c.Send {
			m.received(c.Reg, c.OK, v, ok)
		}
		return m.block(c.Body)
	case If:
		if m.cond(s.Cond) {
			return m.block(s.Body)
		}
		return m.block(s.Else)
	case For:
		for range s.N {
			if f, end := loopFlow(m.block(s.Body)); end {
				return f
			}
		}
	case Range:
		for range s.N {
			v, ok := m.be.recv(m.ch(s.Chan))
			m.received(s.Reg, true, v, ok)
			if !ok {
				break
			}
			if f, end := loopFlow(m.block(s.Body)); end {
				return f
			}
		}
	case Break:
		return brk
	case Continue:
		return cont
	case Return:
		return ret
	case Assert:
		m.be.assert(m.cond(s.Cond), assertMsg(m.g, s.Cond))
	case Load:
		m.regs[s.Reg] = m.be.load(s.Obj)
	case Store:
		m.be.store(s.Obj, m.val(s.Val))
	case Add:
		m.regs[s.Reg] = m.be.add(s.Obj, m.val(s.Val))
	case VarLoad:
		m.regs[s.Reg] = m.be.varLoad(s.Obj)
	case VarStore:
		m.be.varStore(s.Obj, m.val(s.Val))
	default:
		panic("chanprog: unknown statement " + s.Kind.String())
	}
	return next
}
