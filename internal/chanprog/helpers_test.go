package chanprog

import "weft.dev/weft"

// Builders for the hand-written programs of the tests.

func chans(caps ...int) []ChanDecl {
	var ds []ChanDecl
	for _, c := range caps {
		if c < 0 {
			ds = append(ds, ChanDecl{Nil: true})
			continue
		}
		ds = append(ds, ChanDecl{Cap: c})
	}
	return ds
}

func prog(cs []ChanDecl, wait []int, gs ...[]Stmt) *Program {
	return &Program{Chans: cs, Goroutines: gs, Wait: wait}
}

func send(c int, v int64) Stmt { return Stmt{Kind: Send, Chan: c, Val: K(v)} }

func recv(c, reg int) Stmt { return Stmt{Kind: Recv, Chan: c, Reg: reg, OK: true} }

func closeC(c int) Stmt { return Stmt{Kind: Close, Chan: c} }

func assertS(c Cond) Stmt { return Stmt{Kind: Assert, Cond: c} }

func ifS(c Cond, then []Stmt, els ...Stmt) Stmt {
	return Stmt{Kind: If, Cond: c, Body: then, Else: els}
}

func sel(deflt bool, cases ...Case) Stmt {
	return Stmt{Kind: Select, Cases: cases, HasDefault: deflt}
}

func block(ss ...Stmt) []Stmt { return ss }

// The hand-written programs, by what every real run of them must do.
var (
	// g1 sends on an unbuffered channel nobody receives from.
	leakProg = prog(chans(0), nil, nil, block(send(0, 1)))
	// The body receives from a channel nobody sends on.
	deadlockProg = prog(chans(0, 0), nil, block(recv(0, 0)), block(send(1, 1)))
	// The body waits for a goroutine blocked forever.
	joinDeadlockProg = prog(chans(0), []int{1}, nil, block(recv(0, 0)))
	// Two closes of one channel, ordered by a handoff.
	doubleCloseProg = prog(chans(0, 1), nil,
		block(recv(1, 0), closeC(0)),
		block(closeC(0), send(1, 1)))
	sendClosedProg = prog(chans(1), nil, block(closeC(0), send(0, 1)))
	closeNilProg   = prog(chans(0, -1), nil, block(closeC(1)), block())
	// A select on nil channels only, without default, waits forever.
	nilSelectProg = prog(chans(-1, 0), nil, block(sel(false, Case{Chan: 0, Reg: 0, OK: true}, Case{Send: true, Chan: 0, Val: K(1)})), block())
	// A producer and a consumer that ranges until the close; every
	// execution is clean.
	cleanProg = prog(chans(0), []int{1},
		block(Stmt{Kind: Range, Chan: 0, Reg: 0, N: 3, Body: block(assertS(Cond{Kind: Gt, Reg: 0, Const: 0}))}),
		block(send(0, 1), send(0, 2), closeC(0)))
	// A select with default sends only to a receiver already waiting:
	// else g1 stays blocked, a leak.
	trySendProg = prog(chans(0), nil,
		block(sel(true, Case{Send: true, Chan: 0, Val: K(1)})),
		block(recv(0, 0)))
	// Two senders race to the body's first receive.
	raceProg = prog(chans(0), []int{1, 2},
		block(recv(0, 0), assertS(Cond{Kind: Ne, Reg: 0, Const: 2}), recv(0, 1)),
		block(send(0, 1)),
		block(send(0, 2)))
	// A fan-in over two channels that sets each to nil once closed, then
	// a guarded close: clean, with a loop, selects, SetNil and breaks.
	fanInProg = prog(chans(1, 0, 0), []int{1, 2},
		block(Stmt{Kind: For, N: 3, Body: block(
			sel(false,
				Case{Chan: 0, Reg: 0, OK: true, Body: block(ifS(Cond{Kind: NotOK}, block(Stmt{Kind: SetNil, Chan: 0})))},
				Case{Chan: 1, Reg: 1, OK: true, Body: block(ifS(Cond{Kind: NotOK}, block(Stmt{Kind: SetNil, Chan: 1}, Stmt{Kind: Break})))}),
		)},
			recv(2, 2), assertS(Cond{Kind: NotOK})),
		block(send(0, 1), closeC(0)),
		block(send(1, 2), closeC(1), closeC(2)))
	// Ping-pong over unbuffered channels: every step a handoff, never
	// blocked for good, the detector's hardest clean case.
	pingPongProg = prog(chans(0, 0), []int{1},
		block(Stmt{Kind: For, N: 3, Body: block(send(0, 1), recv(1, 0))}),
		block(Stmt{Kind: Range, Chan: 0, Reg: 0, N: 3, Body: block(send(1, 2))}))

	// The reproducers of issue 11, in the order the issue lists them.
	//
	// A status loop returns on stop: received first, stop leaves the
	// sender on status blocked forever.
	statusStopProg = prog(chans(0, 0), nil,
		block(),
		block(Stmt{Kind: For, N: 3, Body: block(sel(false,
			Case{Chan: 0, Reg: -1},
			Case{Chan: 1, Reg: -1, Body: block(Stmt{Kind: Return})}))}),
		block(send(0, 1)),
		block(send(1, 1)))
	// Ping-pong that echoes v+1 until ping is closed, then closes pong:
	// one behaviour, so one execution.
	echoProg = prog(chans(0, 0), []int{1},
		block(
			send(0, 0), recv(1, 0), assertS(Cond{Kind: Eq, Reg: 0, Const: 1}),
			send(0, 1), recv(1, 0), assertS(Cond{Kind: Eq, Reg: 0, Const: 2}),
			closeC(0), recv(1, 0), assertS(Cond{Kind: NotOK})),
		block(Stmt{Kind: Range, Chan: 0, Reg: 0, N: 3, Body: block(Stmt{Kind: Send, Chan: 1, Val: R(0, 1)})}, closeC(1)))
	// A non-blocking receive meets a sender already parked: real Go
	// takes the value (and fails the assert) when the sender came first.
	parkedSenderProg = prog(chans(0), []int{1},
		block(sel(true, Case{Chan: 0, Reg: 0, Body: block(assertS(Cond{Kind: Ne, Reg: 0, Const: 1}))}),
			Stmt{Kind: If, Cond: Cond{Kind: Eq, Reg: 0, Const: 0}, Body: block(recv(0, 1))}),
		block(send(0, 1)))

	// Three programs with two kinds of bugs, one only after the other's
	// prefix: with WithAllBugs, both must be found.
	//
	// g0 takes the 2 and g1 waits forever, or g1 takes its own 2.
	assertOrLeakProg = prog(chans(1), nil,
		block(Stmt{Kind: Recv, Chan: 0, Reg: 1}),
		block(send(0, 2), Stmt{Kind: Recv, Chan: 0, Reg: 2}, assertS(Cond{Kind: Ne, Reg: 2, Const: 2})))
	// g0's assert and g1's send on the channel it closed fail wherever
	// they run.
	assertAndPanicProg = &Program{Chans: chans(0), Atomics: 1, Goroutines: [][]Stmt{
		block(Stmt{Kind: Add, Obj: 0, Reg: 2, Val: K(1)}, assertS(Cond{Kind: Ne, Reg: 2, Const: 1})),
		block(closeC(0), send(0, 2))}}
	// g1 panics after its close unless g2 has failed its assert on the 3
	// before.
	panicOrAssertProg = prog(chans(1), nil,
		block(),
		block(send(0, 3), closeC(0), send(0, 2)),
		block(Stmt{Kind: Recv, Chan: 0, Reg: 2}, assertS(Cond{Kind: Ne, Reg: 2, Const: 3})))
)

// assertFailed is the verdict of a real run whose first failure is the
// assert of goroutine g on c.
func assertFailed(g int, c Cond) string { return "assert: " + assertMsg(g, c) }

// handmade lists the hand-written programs by name, with the verdicts
// every real run must have one of, the bug kinds weft must find with
// WithAllBugs and, for a program with one behaviour, the one execution
// the default engine must explore.
var handmade = []struct {
	name  string
	p     *Program
	real  []string
	kinds kindSet
	one   bool
}{
	{"leak", leakProg, []string{"leak"}, kinds(weft.GoroutineLeak), false},
	{"deadlock", deadlockProg, []string{"deadlock"}, kinds(weft.Deadlock), false},
	{"joinDeadlock", joinDeadlockProg, []string{"deadlock"}, kinds(weft.Deadlock), false},
	{"doubleClose", doubleCloseProg, []string{"panic: close of closed channel"}, kinds(weft.Panic), false},
	{"sendClosed", sendClosedProg, []string{"panic: send on closed channel"}, kinds(weft.Panic), false},
	{"closeNil", closeNilProg, []string{"panic: close of nil channel"}, kinds(weft.Panic), false},
	{"nilSelect", nilSelectProg, []string{"deadlock"}, kinds(weft.Deadlock), false},
	{"clean", cleanProg, []string{"ok"}, 0, true},
	{"trySend", trySendProg, []string{"ok", "leak"}, kinds(weft.GoroutineLeak), false},
	{"race", raceProg, []string{"ok", assertFailed(0, Cond{Kind: Ne, Reg: 0, Const: 2})}, kinds(weft.AssertionFailed), false},
	{"fanIn", fanInProg, []string{"ok"}, 0, false},
	{"pingPong", pingPongProg, []string{"ok"}, 0, true},
	{"statusStop", statusStopProg, []string{"ok", "leak"}, kinds(weft.GoroutineLeak), false},
	{"echo", echoProg, []string{"ok"}, 0, true},
	{"parkedSender", parkedSenderProg, []string{"ok", assertFailed(0, Cond{Kind: Ne, Reg: 0, Const: 1})}, kinds(weft.AssertionFailed), false},
	{"assertOrLeak", assertOrLeakProg, []string{"leak", assertFailed(1, Cond{Kind: Ne, Reg: 2, Const: 2})}, kinds(weft.AssertionFailed, weft.GoroutineLeak), false},
	{"assertAndPanic", assertAndPanicProg, []string{"panic: send on closed channel", assertFailed(0, Cond{Kind: Ne, Reg: 2, Const: 1})}, kinds(weft.AssertionFailed, weft.Panic), false},
	{"panicOrAssert", panicOrAssertProg, []string{"panic: send on closed channel", assertFailed(2, Cond{Kind: Ne, Reg: 2, Const: 3})}, kinds(weft.AssertionFailed, weft.Panic), false},
}
