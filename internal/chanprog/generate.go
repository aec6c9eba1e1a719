package chanprog

import "math/rand/v2"

// MaxLoop bounds the iterations of For and Range loops.
const MaxLoop = 3

// Config bounds what Generate draws.
type Config struct {
	Goroutines [2]int // goroutines the body starts: min, max (at most 3)
	Chans      [2]int // channels: min, max (1 to 3)
	Caps       []int  // the capacities to draw from; nil: 0, 1, 2
	Atomics    int    // atomic int64s: at most 2
	Vars       bool   // a plain shared int64 v0 and its accesses (Body only: RunReal refuses them)
	NilChans   bool   // channels declared nil, and SetNil
	Stmts      int    // statements per goroutine, nested ones included: at most
	Depth      int    // nesting of blocks: at most
	// MaxOps bounds Program.MaxOps, the operations of the longest
	// execution, so that exploring every interleaving stays feasible.
	MaxOps int
	// Kinds are the statements to draw from; nil: all that the fields
	// above allow. The idioms (producer, consumer, guarded close, fan-in)
	// are drawn only when Kinds allows each of their statements.
	Kinds []Kind
}

// DefaultConfig is the configuration of FromBytes: every statement but the
// Var accesses, up to 3 goroutines besides the body and 3 channels, and at
// most 12 operations in any execution.
func DefaultConfig() Config {
	return Config{
		Goroutines: [2]int{1, 3},
		Chans:      [2]int{1, 3},
		Atomics:    1,
		NilChans:   true,
		Stmts:      6,
		Depth:      2,
		MaxOps:     12,
	}
}

// chooser is the source of a generator's decisions: a random generator,
// or the bytes of FromBytes (one a decision, so that a fuzzer's mutation
// changes one decision).
type chooser interface {
	// intn returns a number in [0, n); 0 when n <= 1.
	intn(n int) int
}

type rngChooser struct{ r *rand.Rand }

func (c rngChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

// byteChooser decides by the bytes it has left, then always 0: every
// decision's first choice is one that keeps the program small.
type byteChooser struct{ data []byte }

func (c *byteChooser) intn(n int) int {
	if n <= 1 || len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return int(b) % n
}

// Generate draws a program that Validate accepts and whose executions all
// end (every loop is bounded, nothing recurses) unless they block. Its
// goroutines share their channels, and their sends, receives, closes and
// asserts on received values are placed at random, so that many programs
// have bugs only some interleavings reach: a send on a channel another
// goroutine may close, a close guarded by a received value, an assert on a
// received value, a receive that may get no sender, a select that may
// never fire.
func Generate(rng *rand.Rand, cfg Config) *Program {
	return generate(rngChooser{rng}, cfg)
}

// FromBytes decodes any byte string into a valid small program of
// DefaultConfig, one byte a decision (an empty string is the smallest
// program): the input of fuzz tests.
func FromBytes(data []byte) *Program {
	return generate(&byteChooser{data}, DefaultConfig())
}

// gen is the state of one generation.
type gen struct {
	c       chooser
	cfg     Config
	p       *Program
	allowed [numKinds]bool

	// Of the goroutine being drawn:
	left   int    // statements it may still have, nested ones included
	last   int    // the register written last, which conditions prefer
	fresh  bool   // the statement before wrote a register from a shared object: an assert may check it
	lastOK bool   // the statement before set ok
	sent   []bool // channels it sends on
	closes []bool // channels it closes
	dir    []int  // per channel: 1 once it sends or closes, -1 once it receives
	regs   []int  // the registers written so far
	okSet  bool   // ok has been written

	// bal is, per channel, the sends minus the receives drawn so far
	// (statically, by statement), and closed the channels they may close:
	// the statements drawn next prefer to match them, so that most
	// programs communicate rather than block at once.
	bal    []int
	closed []bool
}

func clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }

// between draws a number in r, clamped to [lo, hi].
func (g *gen) between(r [2]int, lo, hi int) int {
	a, b := clamp(r[0], lo, hi), clamp(r[1], lo, hi)
	if b < a {
		b = a
	}
	return a + g.c.intn(b-a+1)
}

func generate(c chooser, cfg Config) *Program {
	cfg.Stmts = max(cfg.Stmts, 1)
	cfg.Depth = max(cfg.Depth, 0)
	g := &gen{c: c, cfg: cfg, p: &Program{}}
	if cfg.Kinds == nil {
		for k := range numKinds {
			g.allowed[k] = true
		}
	}
	for _, k := range cfg.Kinds {
		if k < numKinds {
			g.allowed[k] = true
		}
	}
	g.allowed[SetNil] = g.allowed[SetNil] && cfg.NilChans
	g.allowed[VarLoad] = g.allowed[VarLoad] && cfg.Vars
	g.allowed[VarStore] = g.allowed[VarStore] && cfg.Vars

	p := g.p
	caps := cfg.Caps
	if len(caps) == 0 {
		caps = []int{0, 1, 2}
	}
	nChans := g.between(cfg.Chans, 1, 3)
	for range nChans {
		p.Chans = append(p.Chans, ChanDecl{Cap: max(caps[g.c.intn(len(caps))], 0)})
	}
	// A nil channel variable is rare, never the only channel, and at most
	// one (ch relies on it).
	if cfg.NilChans && nChans > 1 && g.c.intn(6) == 1 {
		p.Chans[g.c.intn(nChans)].Nil = true
	}
	if a := clamp(cfg.Atomics, 0, 2); a > 0 {
		p.Atomics = 1 + g.c.intn(a)
	}
	if cfg.Vars {
		p.Vars = 1
	}
	n := 1 + g.between(cfg.Goroutines, 1, 3)
	p.Goroutines = make([][]Stmt, n)
	g.bal = make([]int, nChans)
	g.closed = make([]bool, nChans)

	budget := max(cfg.MaxOps, 1)
	reserve := min(4, budget/3) // for settle
	for k := 1; k < n; k++ {
		if budget > 2*n && g.c.intn(2) == 1 {
			p.Wait = append(p.Wait, k)
			budget--
		}
	}
	// The other goroutines first and the body last, so that the body
	// matches what they do: when it receives, someone likely sends.
	budget -= reserve
	for i := range n {
		k := (i + 1) % n
		share := min(max(budget/(n-i)+g.c.intn(2), 1), budget)
		p.Goroutines[k] = g.goroutine(share)
		budget -= blockOps(p.Goroutines[k])
	}
	g.settle(budget + reserve)
	return p
}

// settle makes the channels' books balance more often than chance would:
// for a channel whose receives outnumber its sends and that nobody closes,
// it appends a close to a goroutine that does not receive from it (a
// sender if there is one); for a channel with more sends than receives
// and room, receives to a goroutine that does not send on it (the body if
// it can). Left alone, most programs would block in every interleaving;
// settled, many block in some. Each channel is left alone one time in
// four, and budget bounds the operations added.
func (g *gen) settle(budget int) {
	n := len(g.p.Goroutines)
	use := make([][]int, n)
	closes := make([][]bool, n)
	for k := range n {
		g.bal = make([]int, len(g.p.Chans))
		g.closed = make([]bool, len(g.p.Chans))
		g.account(g.p.Goroutines[k], 1)
		use[k], closes[k] = g.bal, g.closed
	}
	for c, d := range g.p.Chans {
		if d.Nil || budget == 0 || g.c.intn(4) == 0 {
			continue
		}
		total, closed := 0, false
		for k := range n {
			total += use[k][c]
			closed = closed || closes[k][c]
		}
		// pick draws a goroutine whose use of c has the sign wanted,
		// preferring the strongest (then the first drawn).
		pick := func(score func(k int) int) int {
			best, at := -1, g.c.intn(n)
			for i := range n {
				k := (at + i) % n
				if score(k) >= 0 && (best < 0 || score(k) > score(best)) {
					best = k
				}
			}
			return best
		}
		switch {
		case total < 0 && !closed && g.allowed[Close]:
			if k := pick(func(k int) int { return use[k][c] }); k >= 0 {
				g.insert(k, Stmt{Kind: Close, Chan: c})
				budget--
			}
		case total > d.Cap && g.allowed[Recv]:
			k := pick(func(k int) int {
				switch {
				case use[k][c] > 0:
					return -1
				case k == 0:
					return -use[k][c] + 1
				}
				return -use[k][c]
			})
			for range min(total-d.Cap, budget) {
				if k < 0 {
					break
				}
				reg, ok := g.recvDst()
				g.insert(k, Stmt{Kind: Recv, Chan: c, Reg: reg, OK: ok})
				budget--
			}
		}
	}
}

// insert puts s among the top-level statements of goroutine k, at a
// random place after its last send on the same channel (so that a close
// mostly follows the values it ends) and before a final return.
func (g *gen) insert(k int, s Stmt) {
	ss := g.p.Goroutines[k]
	from := 0
	for i := range ss {
		if ss[i].Kind == Send && ss[i].Chan == s.Chan || s.Kind == Close && ss[i].Kind == Close && ss[i].Chan == s.Chan {
			from = i + 1
		}
	}
	at := from + g.c.intn(len(ss)-from+1)
	g.p.Goroutines[k] = append(ss[:at], append([]Stmt{s}, ss[at:]...)...)
}

// goroutine draws the statements of one goroutine of at most avail
// operations: an idiom now and then, then statements at random.
func (g *gen) goroutine(avail int) []Stmt {
	g.left = g.cfg.Stmts
	g.sent = make([]bool, len(g.p.Chans))
	g.closes = make([]bool, len(g.p.Chans))
	g.dir = make([]int, len(g.p.Chans))
	g.regs, g.okSet = nil, false
	g.last, g.fresh, g.lastOK = g.reg(), false, false
	var ss []Stmt
	if g.c.intn(3) == 1 {
		ss = g.idiom(avail)
		avail -= blockOps(ss)
	}
	return append(ss, g.block(avail, 0, false, false, g.cfg.Stmts)...)
}

func (g *gen) reg() int { return g.c.intn(NumRegs) }

// ch draws a channel for a statement outside a select. A nil channel
// there blocks or panics for sure, so it is drawn only one time in four
// (the next channel is not nil).
func (g *gen) ch() int {
	n := len(g.p.Chans)
	c := g.c.intn(n)
	if g.p.Chans[c].Nil && g.c.intn(4) != 0 {
		c = (c + 1) % n
	}
	return c
}

// account adds the channel operations of ss, run mult times, to g.bal and
// g.closed.
func (g *gen) account(ss []Stmt, mult int) {
	for i := range ss {
		s := &ss[i]
		switch s.Kind {
		case Send:
			g.bal[s.Chan] += mult
		case Recv:
			g.bal[s.Chan] -= mult
		case Close:
			g.closed[s.Chan] = true
		case Select:
			for _, c := range s.Cases {
				if c.Send {
					g.bal[c.Chan] += mult
				} else {
					g.bal[c.Chan] -= mult
				}
				g.account(c.Body, mult)
			}
			g.account(s.Default, mult)
		case If:
			g.account(s.Body, mult)
			g.account(s.Else, mult)
		case For:
			g.account(s.Body, mult*s.N)
		case Range:
			g.bal[s.Chan] -= mult * s.N
			g.account(s.Body, mult*s.N)
		}
	}
}

// best draws a channel for an operation in direction dir (1: send or
// close, -1: receive) among the non-nil channels that the goroutine has
// not used in the other direction (a goroutine that both sends and
// receives on a channel mostly waits for itself): at random one time in
// three, else the one of the highest score. One time in ten, any channel.
func (g *gen) best(dir int, score func(c int) int) int {
	c := g.ch()
	if g.c.intn(10) != 0 {
		n := len(g.p.Chans)
		random := g.c.intn(3) == 0
		found := false
		for i := range n {
			d := (c + i) % n
			if g.p.Chans[d].Nil || g.dir[d] == -dir {
				continue
			}
			if !found || !random && score(d) > score(c) {
				c, found = d, true
			}
		}
	}
	if g.dir[c] == 0 {
		g.dir[c] = dir
	}
	return c
}

// sendCh prefers a channel that the goroutines drawn before receive from
// more than they send on, and one that this goroutine does not close.
func (g *gen) sendCh() int {
	c := g.best(1, func(c int) int {
		if g.closes[c] {
			return -g.bal[c] - 5
		}
		return -g.bal[c]
	})
	g.sent[c] = true
	return c
}

// recvCh prefers a channel that the goroutines drawn before send on more
// than they receive from, or close.
func (g *gen) recvCh() int {
	c := g.best(-1, func(c int) int {
		if g.closed[c] {
			return g.bal[c] + 2
		}
		return g.bal[c]
	})
	g.bal[c]--
	return c
}

// closeCh prefers a channel that this goroutine sends on, as a producer
// does, then one that the goroutines drawn before receive from and do not
// close: the close that ends a consumer's loop.
func (g *gen) closeCh() int {
	c := g.best(1, func(c int) int {
		score := -g.bal[c]
		if g.sent[c] {
			score += 4
		}
		if g.closed[c] || g.closes[c] {
			score -= 8
		}
		return score
	})
	g.closes[c] = true
	g.closed[c] = true
	return c
}

// value draws a value to send or store: mostly a small constant, so that
// asserts and conditions on received values hold in some interleavings
// and fail in others.
func (g *gen) value() Expr {
	if len(g.regs) > 0 && g.c.intn(4) == 3 {
		return R(g.regs[g.c.intn(len(g.regs))], 1)
	}
	return K(int64(1 + g.c.intn(3)))
}

// recvDst draws the form of a receive: r, ok = <-c; r = <-c; or <-c.
func (g *gen) recvDst() (reg int, ok bool) {
	switch g.c.intn(5) {
	case 0, 1, 2:
		reg, ok = g.reg(), true
	case 3:
		reg = g.reg()
	default:
		return -1, false
	}
	g.wrote(reg)
	g.lastOK = ok
	g.okSet = g.okSet || ok
	return reg, ok
}

// wrote notes that register reg has just been written from a shared
// object.
func (g *gen) wrote(reg int) {
	g.last, g.fresh = reg, true
	for _, r := range g.regs {
		if r == reg {
			return
		}
	}
	g.regs = append(g.regs, reg)
}

// cond draws the condition of an if on what the goroutine has written,
// preferring the register written last; false when it has written
// nothing to test.
func (g *gen) cond(atomicOK bool) (Cond, bool) {
	atomicOK = atomicOK && g.p.Atomics > 0
	var cs []Cond
	k := int64(g.c.intn(4))
	if len(g.regs) > 0 {
		reg := g.last
		if g.c.intn(4) == 3 {
			reg = g.regs[g.c.intn(len(g.regs))]
		}
		cs = append(cs, Cond{Kind: Eq, Reg: reg, Const: k}, Cond{Kind: Eq, Reg: reg, Const: k},
			Cond{Kind: Ne, Reg: reg, Const: k}, Cond{Kind: Gt, Reg: reg, Const: k})
	}
	if g.okSet {
		cs = append(cs, Cond{Kind: OK}, Cond{Kind: NotOK})
	}
	if atomicOK {
		cs = append(cs, Cond{Kind: AtomicEq, Obj: g.c.intn(g.p.Atomics), Const: k})
	}
	if len(cs) == 0 {
		return Cond{}, false
	}
	return cs[g.c.intn(len(cs))], true
}

// assertCond draws the condition of an assert on what the statement
// before wrote: one that holds in most executions, so that a failure is
// an interleaving's, not the program's: the register is not some value
// another goroutine may send, ok still holds after a receive, an atomic
// is not some value.
func (g *gen) assertCond(lastOK, atomicOK bool) Cond {
	k := int64(1 + g.c.intn(3))
	switch g.c.intn(5) {
	case 0, 1:
		if lastOK {
			return Cond{Kind: OK}
		}
	case 2:
		if atomicOK && g.p.Atomics > 0 {
			return Cond{Kind: AtomicNe, Obj: g.c.intn(g.p.Atomics), Const: k}
		}
	}
	return Cond{Kind: Ne, Reg: g.last, Const: k}
}

// The weights of the statements drawn at random.
var weights = [numKinds]int{
	Send: 6, Recv: 6, Close: 1, Len: 1, SetNil: 1, Select: 4, If: 2, For: 1, Range: 1,
	Break: 1, Continue: 1, Return: 1, Assert: 4, Load: 1, Store: 1, Add: 1, VarLoad: 1, VarStore: 1,
}

// block draws at most maxStmts statements of at most avail operations in
// all, at nesting depth. inLoop: a loop encloses the block; jumpOK: break
// and continue make sense here (in a branch of a loop's body, not as a
// statement of the body itself, which would make the loop pointless).
// A jump or return ends the block, so that nothing is unreachable.
func (g *gen) block(avail, depth int, inLoop, jumpOK bool, maxStmts int) []Stmt {
	var ss []Stmt
	n := 1 + g.c.intn(maxStmts)
	for len(ss) < n && g.left > 0 {
		s, ok := g.stmt(avail, depth, inLoop, jumpOK)
		if !ok {
			break
		}
		ss = append(ss, s)
		avail -= stmtOps(&s)
		if s.Kind == Break || s.Kind == Continue || s.Kind == Return {
			break
		}
	}
	return ss
}

// feasible reports whether a statement of kind k fits.
func (g *gen) feasible(k Kind, avail, depth int, inLoop, jumpOK bool) bool {
	if !g.allowed[k] {
		return false
	}
	compound := depth < g.cfg.Depth && g.left > 1
	switch k {
	case Send, Recv, Close, Len:
		return avail >= 1
	case Select:
		return avail >= 1 && compound
	case SetNil:
		// Only where a later iteration sees it, as in the fan-in idiom.
		return inLoop && depth > 0 && len(g.p.Chans) > 1
	case If:
		return compound && (len(g.regs) > 0 || g.okSet || avail >= 1 && g.p.Atomics > 0)
	case For, Range:
		return compound && avail >= 2
	case Break, Continue:
		return jumpOK
	case Return:
		return depth > 0
	case Assert:
		return g.fresh
	case Load, Store, Add:
		return avail >= 1 && g.p.Atomics > 0
	case VarLoad, VarStore:
		return avail >= 1 && g.p.Vars > 0
	}
	return false
}

// stmt draws one statement of at most avail operations; false when none
// fits.
func (g *gen) stmt(avail, depth int, inLoop, jumpOK bool) (Stmt, bool) {
	w := weights
	for c, b := range g.bal {
		switch {
		case b > 0:
			w[Recv] += 2 * min(b, 3)
		case g.closed[c]:
			w[Recv] += 2
		case b < 0:
			w[Send] += 3 * min(-b, 3)
			w[Close]++
		}
	}
	for c, sent := range g.sent {
		if sent && !g.closes[c] {
			w[Close] += 2
		}
	}
	total := 0
	for k := range numKinds {
		if g.feasible(k, avail, depth, inLoop, jumpOK) {
			total += w[k]
		}
	}
	if total == 0 {
		return Stmt{}, false
	}
	x := g.c.intn(total)
	kind := Kind(0)
	for k := range numKinds {
		if !g.feasible(k, avail, depth, inLoop, jumpOK) {
			continue
		}
		if x < w[k] {
			kind = k
			break
		}
		x -= w[k]
	}
	g.left--
	lastOK := g.lastOK
	g.fresh, g.lastOK = false, false
	s := Stmt{Kind: kind}
	switch kind {
	case Send:
		s.Chan, s.Val = g.sendCh(), g.value()
	case Recv:
		s.Chan = g.recvCh()
		s.Reg, s.OK = g.recvDst()
	case Close:
		s.Chan = g.closeCh()
	case SetNil:
		s.Chan = g.ch()
	case Len:
		s.Chan, s.Reg = g.ch(), g.reg()
		g.wrote(s.Reg)
	case Select:
		s.Cases = make([]Case, 1+g.c.intn(3))
		s.HasDefault = g.c.intn(2) == 1
		for i := range s.Cases {
			c := &s.Cases[i]
			g.fresh, g.lastOK = false, false
			// A select may name a nil channel: its case is never ready.
			if c.Send = g.c.intn(2) == 1; c.Send {
				c.Chan, c.Val = g.sendCh(), g.value()
			} else {
				c.Chan = g.recvCh()
				c.Reg, c.OK = g.recvDst()
			}
			if g.c.intn(4) == 0 {
				c.Chan = g.c.intn(len(g.p.Chans))
			}
			if g.c.intn(2) == 1 {
				c.Body = g.block(avail-1, depth+1, inLoop, inLoop, 2)
			}
		}
		g.fresh, g.lastOK = false, false
		if s.HasDefault && g.c.intn(2) == 1 {
			s.Default = g.block(avail-1, depth+1, inLoop, inLoop, 2)
		}
		g.fresh, g.lastOK = false, false
	case If:
		s.Cond, _ = g.cond(avail >= 1)
		rest := avail - s.Cond.ops()
		s.Body = g.block(rest, depth+1, inLoop, inLoop, 2)
		if g.c.intn(2) == 1 {
			g.fresh, g.lastOK = false, false
			s.Else = g.block(rest, depth+1, inLoop, inLoop, 2)
			// Both branches returning would make the rest unreachable.
			if n := len(s.Else); n > 0 && s.Else[n-1].Kind == Return && endsInJump(s.Body) {
				s.Else = s.Else[:n-1]
			}
		}
		g.fresh, g.lastOK = false, false
	case For:
		s.N = g.loopN(avail, 0)
		s.Body = g.block(avail/s.N, depth+1, true, false, 2)
		g.fresh, g.lastOK = false, false
	case Range:
		s.N = g.loopN(avail, 1)
		s.Chan, s.Reg = g.recvCh(), g.reg()
		g.bal[s.Chan] -= s.N - 1
		g.wrote(s.Reg)
		s.Body = g.block(avail/s.N-1, depth+1, true, false, 2)
		g.fresh, g.lastOK = false, false
	case Assert:
		s.Cond = g.assertCond(lastOK, avail >= 1)
	case Load, Add:
		s.Obj, s.Reg = g.c.intn(g.p.Atomics), g.reg()
		if kind == Add {
			s.Val = g.value()
		}
		g.wrote(s.Reg)
	case Store:
		s.Obj, s.Val = g.c.intn(g.p.Atomics), g.value()
	case VarLoad:
		s.Reg = g.reg()
		g.wrote(s.Reg)
	case VarStore:
		s.Val = g.value()
	}
	return s, true
}

// endsInJump reports whether ss ends in a break, continue or return.
func endsInJump(ss []Stmt) bool {
	if len(ss) == 0 {
		return false
	}
	k := ss[len(ss)-1].Kind
	return k == Break || k == Continue || k == Return
}

// loopN draws the iterations of a loop whose body takes at least per
// operations besides its statements, within avail.
func (g *gen) loopN(avail, per int) int {
	n := 2 + g.c.intn(MaxLoop-1)
	for n > 1 && avail/n < max(per, 1) {
		n--
	}
	return n
}

// idiom draws one of the classic channel patterns, when Config allows
// its statements and the budget its operations:
//   - producer: c <- v; ...; close(c)
//   - consumer: for range c (bounded), maybe asserting on each value
//   - guarded close: r, ok = <-c; if ok { close(d) }
//   - fan-in: a loop of select over two channels, setting each to nil
//     once closed
func (g *gen) idiom(avail int) []Stmt {
	allowed := func(ks ...Kind) bool {
		for _, k := range ks {
			if !g.allowed[k] {
				return false
			}
		}
		return true
	}
	switch g.c.intn(4) {
	case 0:
		if !allowed(Send, Close) || avail < 2 {
			return nil
		}
		c := g.sendCh()
		var ss []Stmt
		for range 1 + g.c.intn(min(2, avail-1)) {
			ss = append(ss, Stmt{Kind: Send, Chan: c, Val: g.value()})
		}
		g.left -= len(ss) + 1
		g.bal[c] += len(ss) - 1
		g.closes[c], g.closed[c] = true, true
		return append(ss, Stmt{Kind: Close, Chan: c})
	case 1:
		if !allowed(Range) || avail < 2 || g.cfg.Depth < 1 {
			return nil
		}
		s := Stmt{Kind: Range, Chan: g.recvCh(), Reg: g.reg(), N: min(MaxLoop, avail)}
		g.bal[s.Chan] -= s.N - 1
		if allowed(Assert) && g.c.intn(2) == 1 {
			s.Body = []Stmt{{Kind: Assert, Cond: Cond{Kind: Ne, Reg: s.Reg, Const: int64(1 + g.c.intn(3))}}}
		}
		g.last = s.Reg
		g.left -= 1 + len(s.Body)
		return []Stmt{s}
	case 2:
		if !allowed(Recv, If, Close) || avail < 2 || g.cfg.Depth < 1 {
			return nil
		}
		r := g.reg()
		g.last = r
		cond := Cond{Kind: OK}
		if g.c.intn(2) == 1 {
			cond = Cond{Kind: Eq, Reg: r, Const: int64(1 + g.c.intn(3))}
		}
		g.left -= 3
		return []Stmt{
			{Kind: Recv, Chan: g.recvCh(), Reg: r, OK: true},
			{Kind: If, Cond: cond, Body: []Stmt{{Kind: Close, Chan: g.closeCh()}}},
		}
	default:
		if !allowed(For, Select, If, SetNil) || len(g.p.Chans) < 2 || avail < 2 || g.cfg.Depth < 2 {
			return nil
		}
		c0 := g.recvCh()
		c1 := (c0 + 1 + g.c.intn(len(g.p.Chans)-1)) % len(g.p.Chans)
		sel := Stmt{Kind: Select}
		for i, c := range []int{c0, c1} {
			sel.Cases = append(sel.Cases, Case{Chan: c, Reg: i, OK: true,
				Body: []Stmt{{Kind: If, Cond: Cond{Kind: NotOK}, Body: []Stmt{{Kind: SetNil, Chan: c}}}}})
		}
		g.left -= 6
		// Two rounds: a third, once both channels are closed and nil,
		// would wait forever, the classic bug, reached only when no value
		// comes before the closes.
		return []Stmt{{Kind: For, N: 2, Body: []Stmt{sel}}}
	}
}
