// Package engine defines the interface between the runtime, which runs the
// program under test one execution at a time, and the exploration engines,
// which decide what happens in each execution.
//
// At every visible operation the runtime calls Step. The engine picks the
// goroutine whose pending operation happens next, performs that operation on
// its own model of the execution (memory, locks, the execution graph...) and
// writes the operation's result into the goroutine. The runtime only switches
// goroutines when the engine picks a different one.
//
// Each engine lives in its own package below this one and is independent of
// the others, in the style of golang.org/x/tools/go/analysis.
package engine

import (
	"fmt"
	"sync/atomic"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/sym"
)

// Engine explores the executions of a program.
type Engine interface {
	// Begin prepares the next execution. It returns false when there is
	// none left.
	Begin(x *Exec) bool
	// Step decides what happens next in the running execution.
	Step(x *Exec) Decision
	// End tells the engine how the execution ended.
	End(x *Exec, e Ending)
	// Exhaustive reports, once Begin has returned false, whether every
	// execution of the program was explored.
	Exhaustive() bool
}

// Splitter is implemented by engines whose exploration is a tree whose
// subtrees share nothing, so that several engines, one per worker or per
// machine, can explore parts of it.
type Splitter interface {
	// Split, called between executions (after End, before Begin), takes
	// away from the engine some of the executions it has left to explore,
	// the last ones in its order, and returns an engine, configured with
	// c, that explores exactly those in the same order. It returns nil
	// when the engine has nothing it can give. The two engines share
	// nothing mutable but what a Waiter hands from one part to the next,
	// under its own lock; the new one refers to goroutines and symbolic
	// terms by the ids the engine uses, so it must run with a copy of
	// their names and of the term table as they are at the split.
	Split(c Config) Engine
}

// Sizer is implemented by splitters whose parts copy what they are split
// from: Size is about how large a copy is, in events and view entries (a
// view has an entry per goroutine). The start of a sharded exploration
// bounds what its parts hold with it; without it, with the events of the
// last execution.
type Sizer interface {
	Size() int
}

// Sampler is implemented by engines that sample executions, each drawn
// afresh, rather than explore them all: their exploration is never
// exhaustive, its parts (Splitter) end once they ran their executions,
// and the driver names the goroutines and variables of each execution
// afresh, in the order it meets them, so that an execution is the same,
// messages included, whichever part runs it.
type Sampler interface {
	// Samples does nothing: it marks the engine as a sampler.
	Samples()
}

// Waiter is implemented by splitters whose parts depend on the parts before
// them in the order: a part's executions add to what the later parts explore
// (sdpor's races add to the backtrack sets of the scheduling points the
// parts share), so a part may have to wait for the parts before it to end
// before it can decide what comes next.
type Waiter interface {
	// Waits reports, once Begin has returned false, that the engine has
	// executions left but waits for parts before it to end: it is to run
	// again, with Begin, once Ready.
	Waits() bool
	// Ready reports whether the parts a waiting engine waits for have
	// ended. It may be called from any goroutine.
	Ready() bool
}

// Scheduler is implemented by engines whose executions do not run in an
// order that the interleaving semantics reproduces. Schedule returns the
// choices of an equivalent interleaving of the execution that just ended, to
// be used as its replay schedule.
type Scheduler interface {
	Schedule(x *Exec) []Choice
}

// Awaiter is implemented by engines that tell a goroutine that waits in
// weft.Yield for good from one whose wait is an artifact of the
// exploration. Yield blocks a goroutine whose spin-loop iteration only read
// (a Block with Label.Arg 1): the executions where it reads newer writes
// are explored from those writes, as for Assume.
type Awaiter interface {
	// Spins reports, at the end of an execution, whether goroutine g,
	// blocked in such a wait, read the latest writes of the locations
	// its iteration read: it would spin forever.
	Spins(x *Exec, g int32) bool
}

// Replayer is implemented by engines that can perform an operation without
// a Step when they replay it from a recorded execution and it has nothing
// to choose (a load, a store, a spawn, a join, a return): a goroutine
// performs many of them one after another. Step, for each of them, would
// pick the goroutine and return Ran with Alt 0 and no bug; Replay spares
// the runtime the round trip through Step's choice and its Decision.
type Replayer interface {
	// Replay is called when goroutine g, being x.Last, waits to perform
	// its pending operation. It performs the pending operation of the
	// goroutine that Step would pick, g or another, and returns that
	// goroutine's id, when Step would perform it as such an operation;
	// else it returns -1 having changed nothing, and the runtime calls
	// Step.
	//
	// A goroutine spawned by an operation that Replay performed does not
	// run until it is needed: its Pending is unknown (Kind event.Invalid)
	// until Replay picks it, which then returns its id having performed
	// nothing. The runtime runs it to its first operation and calls
	// Replay for it, although it is not x.Last. Step never sees such a
	// goroutine.
	Replay(x *Exec, g *Goroutine) int32
}

// Orderer is implemented by engines that can tell, at any point of the
// running execution, which operations happen before it: the runtime checks
// the accesses of plain memory, which are not operations, against it (a
// pair of conflicting accesses that happens-before does not order is a data
// race).
type Orderer interface {
	// Clock returns goroutine g's clock at the point after its last
	// performed operation: for each goroutine t, how many of t's events
	// happen before that point (g's own entry counts its events so far;
	// goroutines past the end count none). An access that t made when its
	// own entry was n happens before the point if and only if the
	// clock's entry for t exceeds n: t's next event, after the access,
	// happens before it. The slice may be the engine's: it is valid
	// until the engine's next call.
	Clock(x *Exec, g int32) []int32
}

// Config is what every engine may be configured with.
type Config struct {
	Seed       uint64 // random choices
	Executions int    // how many executions a sampling engine runs
	// Concolic is how symbolic values are handled: the expression table,
	// the solver, and an explicit domain for the ExEn baseline.
	Concolic *concolic.Config
}

// Status is the state of a goroutine between two steps.
type Status uint8

// The states of a goroutine.
const (
	Ready   Status = iota // Pending waits to be performed
	Ended                 // the goroutine returned
	Blocked               // the goroutine blocked forever in Assume
	Stopped               // a bug stopped the goroutine; the others go on (Exec.Continue)
)

// Goroutine is the engine's view of one modelled goroutine.
type Goroutine struct {
	ID      int32
	Parent  int32 // -1 for the body's goroutine
	Status  Status
	Pending event.Label  // the operation the goroutine waits to perform
	Result  event.Result // set by the engine when it performs Pending
	Steps   int32        // operations performed so far
}

// Exec is the engine's view of the running execution.
type Exec struct {
	// G holds the goroutines by id. Ids are stable across executions (a
	// goroutine is named by its parent and its rank among the parent's
	// children), so G may have holes.
	G []*Goroutine
	// Last is the goroutine that performed the previous operation, or -1.
	Last int32
	// Objects holds the kind of each object by index, in the order the
	// execution first touched them.
	Objects []event.ObjKind
	// Model is the current model of the symbolic variables, under which
	// symbolic values have their concrete value. The engine owns it and may
	// change it during an execution.
	Model *sym.Model
	// Continue says that the execution goes on past its bugs (see
	// Continuer): the runtime sets it, with WithAllBugs, for engines
	// that implement Continuer.
	Continue bool
	// Late, set by the runtime once the exploration's timeout has
	// passed, says that no execution follows this one: an engine may
	// skip what only prepares later ones (condpor's backward revisits,
	// which for one write of a long execution took minutes).
	Late *atomic.Bool
}

// Unreplayable names what makes a program do something else when an
// execution of it is replayed, for the messages of Nondeterminism bugs.
const Unreplayable = "map iteration order, time, math/rand, hash/maphash seeds"

// Diverged is the decision of an engine whose replay of a recorded
// execution found the program doing something else (what says what): a
// Nondeterminism bug of goroutine g, -1 for none.
func Diverged(g int32, what string) Decision {
	return Failed(Choice{G: -1}, &Bug{
		Kind:    Nondeterminism,
		Message: "the program did something different when an execution was replayed (" + what + "): " + Unreplayable + ", or a goroutine not started with weft.Go?",
		G:       g,
	})
}

// Continuer is implemented by engines that, with WithAllBugs, explore on
// past a bug, because the executions they have not explored yet are found
// from the events that come after it: the goroutine whose operation
// failed, or that panicked or failed an assertion, stops (Status Stopped)
// and the others go on; a data race, which Step reports with Run, stops
// nothing. The execution then ends as Buggy, never as a deadlock or a
// leak, which could be due to a stopped goroutine.
type Continuer interface {
	// Fault is called when goroutine g's bug stops it (failed is its
	// failing operation, nil when it has none, as for a panic), or right
	// after Step reported its race. It reports whether the bug can be
	// the first of an execution, that is no earlier bug of this one must
	// come before it, and then the schedule of such an execution, up to
	// and including the failing operation. The schedule also runs the
	// goroutines of also as far as they say: the bug needs what they did
	// there (a race on plain memory needs the other access).
	Fault(x *Exec, g int32, failed *Choice, also []Reach) (sched []Choice, first bool)
}

// Reach names the point of goroutine G after its first N events (counted
// as in Orderer's clocks).
type Reach struct{ G, N int32 }

// Verdict is the kind of a Decision.
type Verdict uint8

// The decisions an engine can take.
const (
	Run  Verdict = iota // goroutine G performed its pending operation
	Stop                // no goroutine can move: the execution is over
	Fail                // the engine found a bug in the execution
	Drop                // the engine abandons the execution (not a class of its own)
)

// Decision is the answer to Step.
type Decision struct {
	Verdict Verdict
	// Choice names the operation performed (Run: goroutine G's pending
	// operation with outcome Alt) or, for Fail, the operation that is the
	// bug; G is -1 when the bug is not an operation's.
	Choice
	// Bug is the bug of a Fail; with Run, only when x.Continue, a data
	// race of the operation, performed all the same.
	Bug *Bug
}

// Failed returns the decision that the operation of choice c is the bug b.
func Failed(c Choice, b *Bug) Decision {
	return Decision{Verdict: Fail, Choice: c, Bug: b}
}

// Ran returns the decision that the operation of choice c was performed.
func Ran(c Choice) Decision { return Decision{Verdict: Run, Choice: c} }

// Choice is one step of a schedule: goroutine G performs its pending
// operation with outcome Alt. With names, for a channel operation, the
// goroutine whose offer it takes (or that took its offer), plus one: 0 is
// none (see package chans).
type Choice struct {
	G    int32
	Alt  int32
	With int32
}

// BugKind classifies bugs. The values match weft.BugKind.
type BugKind uint8

// The kinds of bugs, in weft.BugKind order.
const (
	AssertionFailed BugKind = iota
	Panic
	Deadlock
	DataRace
	StepLimit
	GoroutineLeak
	Nondeterminism
	Misuse
)

var bugKindNames = [...]string{
	AssertionFailed: "assertion failed",
	Panic:           "panic",
	Deadlock:        "deadlock",
	DataRace:        "data race",
	StepLimit:       "step limit",
	GoroutineLeak:   "goroutine leak",
	Nondeterminism:  "nondeterminism",
	Misuse:          "misuse",
}

func (k BugKind) String() string {
	if int(k) < len(bugKindNames) {
		return bugKindNames[k]
	}
	return fmt.Sprintf("bug(%d)", k)
}

// Bug is a bug found in an execution.
type Bug struct {
	Kind    BugKind
	Message string
	G       int32  // the goroutine at fault, or -1
	Stack   string // the goroutine's stack, for panics
	// NoReplay is set for bugs that replaying cannot reproduce (the program
	// escaped the checker's control).
	NoReplay bool
}

// EndKind says how an execution ended.
type EndKind uint8

// The ways an execution ends.
const (
	Completed EndKind = iota // every goroutine returned
	Assumed                  // a goroutine blocked in Assume: not a bug, not complete
	Buggy                    // the execution has a bug
	Dropped                  // the engine abandoned it
)

// Ending describes how an execution ended.
type Ending struct {
	Kind EndKind
	Bug  *Bug // for Buggy
}
