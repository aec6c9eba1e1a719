package timeprog

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

// A Program is a small program with virtual time, as data: the body g0
// starts one worker g1 first thing and may join it last. They share an
// int channel ch, an atomic int flag, optionally a Timer T made by the
// body before it starts the worker, and optionally a context ctx (made by
// WithCancel or WithTimeout) whose cancel either goroutine may call. Each
// goroutine has a register r, 0 at first, that its operations set and its
// asserts check: which values it can hold depends on the interleaving.
type Program struct {
	Cap   int           // ch's capacity: 0 or 1
	Timer time.Duration // T's duration; 0: no T
	Ctx   CtxKind
	CtxD  time.Duration // WithTimeout's timeout
	Join  bool          // the body joins g1 last
	G     [2][]Stmt     // the statements of g0 (after it starts g1) and of g1
}

// CtxKind says whether and how a Program makes ctx.
type CtxKind uint8

// The contexts a Program may make.
const (
	NoCtx       CtxKind = iota
	WithCancel          // context.WithCancel(context.Background())
	WithTimeout         // context.WithTimeout(context.Background(), CtxD)
)

// Op is what a statement does.
type Op uint8

// The statements of a Program; V is a value, D a duration.
const (
	Send       Op = iota // ch <- V
	Recv                 // r = <-ch
	RecvOrTime           // select { case r = <-ch: case <-time.After(D): r = -1 }
	Sleep                // time.Sleep(D)
	RecvTimer            // select { case <-T.C: r = -2; case r = <-ch: }
	Stop                 // r = 1 if T.Stop() else 2
	Reset                // r = 1 if T.Reset(D) else 2
	AfterFunc            // time.AfterFunc(D, func() { flag.Store(V) })
	LoadFlag             // r = flag.Load()
	Ticker               // tk := time.NewTicker(D); up to 2 times select { case <-tk.C: r++; case <-ctx.Done() (or <-ch): stop }; tk.Stop()
	Cancel               // cancel()
	Done                 // select { case <-ctx.Done(): r = -3; case r = <-ch: }
	Assert               // weft.Assert(r != V)
	Child                // c := context.WithTimeout(ctx, D) (checked: see Invariant); select { case <-c.Done(): r = -4; case r = <-ch: }; stop c
	numOps
)

// A Stmt is one statement of a goroutine.
type Stmt struct {
	Op Op
	V  int
	D  time.Duration
}

// cost is s's share of its program's cost (see MaxCost).
func (s Stmt) cost() int {
	switch s.Op {
	case RecvOrTime, Sleep, Reset, Child:
		return 1
	case AfterFunc, Ticker:
		// A goroutine more, or up to MaxTicks firings.
		return 2
	}
	return 0
}

// MaxCost bounds the cost of a generated program: a timer (T, a Sleep, a
// time.After, a Reset, a Child's) costs 1, and so does a context (its mutex and
// channels); WithTimeout's (a context and a timer), an AfterFunc (a timer
// and a goroutine) and a ticker (a timer that fires up to MaxTicks times)
// cost 2. So dfs, which explores every interleaving of the clock's and the
// context's operations, can exhaust most programs.
const MaxCost = 2

// Generate draws a random Program of cost at most MaxCost, 1 to 3
// statements a goroutine, biased towards races that only some
// interleavings lose (a value sent against a timeout, a Stop against the
// firing, a cancel against a receive), and asserts on values that some
// interleavings give the register.
func Generate(rng *rand.Rand) *Program {
	p := &Program{Cap: rng.IntN(2), Join: rng.IntN(2) == 0}
	dur := func() time.Duration { return time.Duration(1+rng.IntN(2)) * time.Second }
	budget := MaxCost
	if rng.IntN(2) == 0 {
		p.Timer = dur()
		budget--
	}
	switch rng.IntN(4) {
	case 1:
		p.Ctx = WithCancel
		budget--
	case 2:
		if budget == MaxCost {
			p.Ctx, p.CtxD = WithTimeout, dur()
			budget -= 2
		}
	}
	for g := range p.G {
		for range 1 + rng.IntN(3) {
			s := p.stmt(rng, g, budget, dur)
			budget -= s.cost()
			p.G[g] = append(p.G[g], s)
		}
	}
	return p
}

// stmt draws a statement of goroutine g that sets at most budget timers.
func (p *Program) stmt(rng *rand.Rand, g, budget int, dur func() time.Duration) Stmt {
	for {
		s := Stmt{Op: Op(rng.IntN(int(numOps))), V: 10*(g+1) + rng.IntN(2), D: dur()}
		switch {
		case s.cost() > budget,
			(s.Op == RecvTimer || s.Op == Stop || s.Op == Reset) && p.Timer == 0,
			(s.Op == Cancel || s.Op == Done || s.Op == Child) && p.Ctx == NoCtx:
			continue
		case s.Op == Assert:
			// Values the register may hold: the other goroutine's
			// sends, the timeout and timer outcomes, Stop's results.
			vals := []int{0, -1, -2, -3, -4, 1, 2, 10 * (2 - g), 10*(2-g) + 1}
			s.V = vals[rng.IntN(len(vals))]
		}
		return s
	}
}

// Cost returns the cost of p (see MaxCost).
func (p *Program) Cost() int {
	n := int(p.Ctx) // WithTimeout costs a context and a timer
	if p.Timer > 0 {
		n++
	}
	for _, ss := range p.G {
		for _, s := range ss {
			n += s.cost()
		}
	}
	return n
}

// Body returns the program as a body for weft.
func (p *Program) Body() func() {
	return func() {
		ch := weft.MakeChan[int](p.Cap)
		var flag atomic.Int64
		var tm *time.Timer
		if p.Timer > 0 {
			tm = time.NewTimer(p.Timer)
		}
		var ctx context.Context
		var cancel context.CancelFunc
		switch p.Ctx {
		case WithCancel:
			ctx, cancel = context.WithCancel(context.Background())
		case WithTimeout:
			ctx, cancel = context.WithTimeout(context.Background(), p.CtxD)
		}
		run := func(ss []Stmt) {
			r := 0
			for _, s := range ss {
				r = s.run(r, ch, &flag, tm, ctx, cancel)
			}
		}
		w := weft.Go(func() { run(p.G[1]) })
		run(p.G[0])
		if p.Join {
			w.Join()
		}
	}
}

// run performs s with register r and returns the register after it.
func (s Stmt) run(r int, ch *weft.Chan[int], flag *atomic.Int64, tm *time.Timer, ctx context.Context, cancel context.CancelFunc) int {
	ok := func(b bool) int {
		if b {
			return 1
		}
		return 2
	}
	switch s.Op {
	case Send:
		ch.Send(s.V)
	case Recv:
		r, _ = ch.Recv()
	case RecvOrTime:
		if weft.Select(ch.RecvCase(&r, nil), time.After(s.D).RecvCase(nil, nil)) == 1 {
			r = -1
		}
	case Sleep:
		time.Sleep(s.D)
	case RecvTimer:
		if weft.Select(tm.C.RecvCase(nil, nil), ch.RecvCase(&r, nil)) == 0 {
			r = -2
		}
	case Stop:
		r = ok(tm.Stop())
	case Reset:
		r = ok(tm.Reset(s.D))
	case AfterFunc:
		v := int64(s.V)
		time.AfterFunc(s.D, func() { flag.Store(v) })
	case LoadFlag:
		r = int(flag.Load())
	case Ticker:
		tk := time.NewTicker(s.D)
		stop := ch.RecvCase(nil, nil)
		if ctx != nil {
			stop = ctx.Done().RecvCase(nil, nil)
		}
		for range 2 {
			if weft.Select(tk.C.RecvCase(nil, nil), stop) != 0 {
				break
			}
			r++
		}
		tk.Stop()
	case Cancel:
		cancel()
	case Done:
		if weft.Select(ctx.Done().RecvCase(nil, nil), ch.RecvCase(&r, nil)) == 0 {
			r = -3
		}
	case Assert:
		weft.Assert(r != s.V, "r = %d", r)
	case Child:
		before := ctx.Err()
		c, stop := context.WithTimeout(ctx, s.D)
		if before != nil {
			weft.Assert(c.Err() == before, "%s: a context made from a canceled one has its error %v, not %v", Invariant, before, c.Err())
		}
		if weft.Select(c.Done().RecvCase(nil, nil), ch.RecvCase(&r, nil)) == 0 {
			r = -4
		}
		stop()
	}
	return r
}

// Invariant starts the message of a failed assert that a program makes of
// what Go guarantees, whatever the interleaving: one that fails is a bug of
// weft's model, not of the program.
const Invariant = "Go's invariant"

var opNames = [numOps]string{
	Send: "ch <- %[1]d", Recv: "r = <-ch", RecvOrTime: "select { case r = <-ch: case <-time.After(%[2]v): r = -1 }",
	Sleep: "time.Sleep(%[2]v)", RecvTimer: "select { case <-T.C: r = -2; case r = <-ch: }",
	Stop: "r = 1 if T.Stop() else 2", Reset: "r = 1 if T.Reset(%[2]v) else 2",
	AfterFunc: "time.AfterFunc(%[2]v, func() { flag.Store(%[1]d) })", LoadFlag: "r = flag.Load()",
	Ticker: "tk := time.NewTicker(%[2]v); twice: select { case <-tk.C: r++; case <-ctx.Done() (or <-ch): break }; tk.Stop()",
	Cancel: "cancel()", Done: "select { case <-ctx.Done(): r = -3; case r = <-ch: }", Assert: "assert r != %[1]d",
	Child: "c, stop := context.WithTimeout(ctx, %[2]v) (its Err that of ctx, if canceled before); select { case <-c.Done(): r = -4; case r = <-ch: }; stop()",
}

// String writes p as pseudo-Go, for the report of a failure.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ch := make(chan int, %d)\n", p.Cap)
	if p.Timer > 0 {
		fmt.Fprintf(&b, "T := time.NewTimer(%v)\n", p.Timer)
	}
	switch p.Ctx {
	case WithCancel:
		b.WriteString("ctx, cancel := context.WithCancel(context.Background())\n")
	case WithTimeout:
		fmt.Fprintf(&b, "ctx, cancel := context.WithTimeout(context.Background(), %v)\n", p.CtxD)
	}
	for g := 1; g >= 0; g-- {
		fmt.Fprintf(&b, "g%d:\n", g)
		for _, s := range p.G[g] {
			// Only some formats use the value or the duration.
			line := strings.SplitN(fmt.Sprintf(opNames[s.Op]+"\x00%[1]d%[2]v", s.V, s.D), "\x00", 2)[0]
			fmt.Fprintf(&b, "\t%s\n", line)
		}
	}
	if p.Join {
		b.WriteString("g0: join g1\n")
	}
	return b.String()
}
