package chanprog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"weft.dev/weft"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/smt"
	isym "weft.dev/weft/internal/sym"
)

// The properties the oracle checks on every program, as its problems name
// them.
const (
	propInternal = "internal error"  // weft failed (an error of Explore, a panic of an engine)
	propVerdict  = "verdict"         // the default engine and dfs disagree on whether there is a bug
	propKinds    = "kinds"           // with WithAllBugs, their sets of bug kinds differ
	propNondet   = "nondeterminism"  // a Nondeterminism bug on a deterministic program
	propReplay   = "replay"          // a bug's Replay token does not reproduce a bug of its kind
	propClasses  = "classes"         // the default engine does not explore each class of dfs exactly once
	propReal     = "real Go"         // real Go shows a bug kind an engine never finds
	propClean    = "real Go clean"   // real Go ends cleanly where dfs finds a bug in every execution
	propTimeout  = "real Go timeout" // a real run neither ended nor was found blocked
)

// kindSet is a set of weft bug kinds, a bit a kind.
type kindSet uint32

func kindsOf(bugs []*weft.Bug) kindSet {
	var s kindSet
	for _, b := range bugs {
		s |= 1 << b.Kind
	}
	return s
}

// kinds is the set of ks.
func kinds(ks ...weft.BugKind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kindSet) has(k weft.BugKind) bool { return s&(1<<k) != 0 }

func (s kindSet) String() string {
	var ks []string
	for k := weft.AssertionFailed; k <= weft.Misuse; k++ {
		if s.has(k) {
			ks = append(ks, k.String())
		}
	}
	return "{" + strings.Join(ks, ", ") + "}"
}

// realKind is the weft bug kind of a real run's verdict (see
// Outcome.Verdict): false for a clean run and for one that timed out.
func realKind(o Outcome) (weft.BugKind, bool) {
	switch {
	case len(o.Failures) > 0 && o.Failures[0].Assert:
		return weft.AssertionFailed, true
	case len(o.Failures) > 0:
		return weft.Panic, true
	case o.Deadlock:
		return weft.Deadlock, true
	case o.Leak:
		return weft.GoroutineLeak, true
	}
	return 0, false
}

// oracle compares, on one program at a time, the default engine with dfs,
// and both with real Go.
type oracle struct {
	// limit bounds dfs's executions; a program that needs more is
	// skipped, as dfs is then no reference.
	limit int
	// seeds is the number of real runs of a program (none when it
	// accesses Vars).
	seeds int
}

// problem is a property that does not hold on a program.
type problem struct {
	prop   string
	detail string
}

// verdict is what the oracle found on one program.
type verdict struct {
	skipped  bool // dfs was not exhaustive within the limit: nothing was compared
	execs    int  // executions of the default engine, with WithAllBugs
	complete int  // the complete ones among them
	dropped  int  // the executions it abandoned as redundant (Result.Redundant)
	dfsExecs int
	kinds    kindSet // the bug kinds of the default engine, with WithAllBugs
	dfsKinds kindSet
	real     map[string]int // real runs by verdict
	problems []problem
}

func (v *verdict) fail(prop, format string, args ...any) {
	v.problems = append(v.problems, problem{prop, fmt.Sprintf(format, args...)})
}

// props returns the properties that failed, sorted, each once.
func (v *verdict) props() []string {
	set := map[string]bool{}
	for _, p := range v.problems {
		set[p.prop] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// describe returns v's problems and p, in both its forms, and the seed of
// its real runs: what it takes to reproduce a failure.
func (v *verdict) describe(p *Program, seed uint64) string {
	var b strings.Builder
	for _, pr := range v.problems {
		fmt.Fprintf(&b, "%s: %s\n", pr.prop, pr.detail)
	}
	fmt.Fprintf(&b, "real runs (seeds %d..): %v\nprogram:\n%v\nas Go:\n%s", seed, v.real, p, p.GoSource())
	return b.String()
}

// check runs every comparison on p; seed is the first seed of its real
// runs.
func (o oracle) check(p *Program, seed uint64) *verdict {
	v := &verdict{}
	body := p.Body()
	ref, err := reference(body, o.limit)
	if err != nil {
		v.fail(propInternal, "dfs: %v", err)
		return v
	}
	if !ref.exhaustive {
		v.skipped = true
		return v
	}
	v.dfsExecs, v.dfsKinds = ref.executions, ref.kinds
	all, err := weft.Explore(body, weft.WithAllBugs())
	if err != nil {
		v.fail(propInternal, "default engine with WithAllBugs: %v", err)
		return v
	}
	v.execs, v.complete, v.dropped, v.kinds = all.Executions, all.Complete, all.Redundant, kindsOf(all.Bugs)
	results := []weft.Result{all}
	if ref.kinds != 0 {
		// dfs through the public API too, for the kinds as a user sees
		// them and for the replay tokens of its bugs.
		d, err := weft.Explore(body, weft.WithEngine("dfs"), weft.WithAllBugs(), weft.WithMaxExecutions(o.limit))
		if err != nil {
			v.fail(propInternal, "dfs with WithAllBugs: %v", err)
			return v
		}
		results = append(results, d)
		if kindsOf(d.Bugs) != ref.kinds {
			v.fail(propKinds, "dfs reports %v, its exploration found %v", kindsOf(d.Bugs), ref.kinds)
		}
	}
	if v.kinds != ref.kinds {
		v.fail(propKinds, "with WithAllBugs, dfs finds %v, the default engine %v", ref.kinds, v.kinds)
	}
	first := all
	if len(all.Bugs) > 0 {
		// Without a bug the two explorations are the same one.
		if first, err = weft.Explore(body); err != nil {
			v.fail(propInternal, "default engine: %v", err)
			return v
		}
		results = append(results, first)
	}
	if (len(first.Bugs) > 0) != (ref.kinds != 0) {
		v.fail(propVerdict, "dfs finds %v, the default engine (first bug) %v", ref.kinds, kindsOf(first.Bugs))
	}
	checkBugs(v, body, results)
	if ref.kinds == 0 && len(all.Bugs) == 0 {
		checkClasses(v, body, ref.classes, all.Complete)
	}
	o.checkReal(v, p, seed, ref)
	return v
}

// checkBugs checks that no result has a Nondeterminism bug and that the
// Replay token of every bug reproduces a bug of its kind.
func checkBugs(v *verdict, body func(), results []weft.Result) {
	replayed := map[string]bool{}
	for _, res := range results {
		for _, b := range res.Bugs {
			if b.Kind == weft.Nondeterminism {
				v.fail(propNondet, "%s: %s", res.Engine, b.Message)
				continue
			}
			if b.Replay == "" {
				v.fail(propReplay, "%s: %v has no replay token", res.Engine, b.Kind)
				continue
			}
			if replayed[b.Replay] {
				continue
			}
			replayed[b.Replay] = true
			r, err := weft.Explore(body, weft.WithReplay(b.Replay))
			switch {
			case err != nil:
				v.fail(propReplay, "%s: %v: %s: %v", res.Engine, b.Kind, b.Replay, err)
			case len(r.Bugs) == 0:
				v.fail(propReplay, "%s: %v: %s: the replay ends without a bug", res.Engine, b.Kind, b.Replay)
			case r.Bugs[0].Kind != b.Kind:
				v.fail(propReplay, "%s: %v: %s: the replay finds %v: %s", res.Engine, b.Kind, b.Replay, r.Bugs[0].Kind, r.Bugs[0].Message)
			}
		}
	}
}

// checkClasses checks, on a program without bugs, that the default engine
// explores each class of complete executions that dfs finds exactly once,
// and nothing else: complete is the number of complete executions the
// public API reports.
func checkClasses(v *verdict, body func(), want map[uint64]int, complete int) {
	got, err := optimal(body)
	if err != nil {
		v.fail(propInternal, "condpor: %v", err)
		return
	}
	var twice, unseen, missed int
	for c, n := range got {
		if n > 1 {
			twice++
		}
		if want[c] == 0 {
			unseen++
		}
	}
	for c := range want {
		if got[c] == 0 {
			missed++
		}
	}
	if twice+unseen+missed > 0 || complete != len(want) {
		v.fail(propClasses, "dfs finds %d classes; the default engine explores %d complete executions, %d classes more than once, %d classes dfs never saw, and misses %d",
			len(want), complete, twice, unseen, missed)
	}
}

// checkReal runs p on real Go and checks that each bug kind a run shows is
// among those both engines find, and that a clean run has a clean
// execution among dfs's.
func (o oracle) checkReal(v *verdict, p *Program, seed uint64, ref *explored) {
	if p.UsesVars() || o.seeds == 0 {
		return
	}
	v.real = map[string]int{}
	reported := map[string]bool{}
	for i := range uint64(o.seeds) {
		out := p.RunReal(seed + i)
		// A run abandoned after hardLimit says nothing: on a machine
		// busy with other work, a process starved that long is no rare
		// thing (a scan beside two test runs on two cores showed one in
		// 30,000 runs). A program that runs forever does so again.
		for try := 0; out.TimedOut && try < 2; try++ {
			out = p.RunReal(seed + i)
		}
		verd := out.Verdict()
		v.real[verd]++
		if reported[verd] {
			continue
		}
		k, bug := realKind(out)
		switch {
		case out.TimedOut:
			v.fail(propTimeout, "seed %d: %v", seed+i, out)
		case bug && (!ref.kinds.has(k) || !v.kinds.has(k)):
			v.fail(propReal, "seed %d: %v (%v); dfs finds %v, the default engine %v", seed+i, out, k, ref.kinds, v.kinds)
		case !bug && len(ref.classes) == 0:
			v.fail(propClean, "seed %d: %v; dfs finds a bug in every execution: %v", seed+i, out, ref.kinds)
		default:
			continue
		}
		reported[verd] = true
	}
}

// solver is the solver of the internal explorations: the programs have no
// symbolic values, but the engines expect a configuration.
var solver = func() smt.Solver {
	s, err := smt.New("builtin")
	if err != nil {
		panic(err)
	}
	return s
}()

// explored is what an internal exploration found.
type explored struct {
	classes map[uint64]int // complete executions (every goroutine returned) by class
	// bugs counts the executions by the class of bug ending they reach,
	// for the engines that report it (observe).
	bugs progtest.BugEndings
	// maximal counts qpor's executions by the trace of their maximal
	// configuration, however they end (qpor.Engine.OnMaximal).
	maximal    map[uint64]int
	kinds      kindSet // of the bugs found
	executions int
	redundant  int // dropped: sleep-set blocked or dead ends
	exhaustive bool
}

// explore runs body with the engine that mk makes, going on past bugs, at
// most limit executions (0: no limit); the engine calls mk's second
// argument with the class of every complete execution.
func explore(body func(), limit int, mk func(*concolic.Config, func(uint64)) engine.Engine) (*explored, error) {
	conc := &concolic.Config{Table: isym.NewTable(), Solver: solver}
	x := &explored{classes: map[uint64]int{}, bugs: progtest.BugEndings{}, maximal: map[uint64]int{}}
	eng := mk(conc, func(c uint64) { x.classes[c]++ })
	progtest.Observe(eng, x.bugs, x.maximal)
	rep := runtime.Run(body, runtime.Config{Engine: eng, Concolic: conc, MaxExecutions: limit, AllBugs: true})
	if rep.Internal != "" {
		return nil, fmt.Errorf("%s", rep.Internal)
	}
	for _, f := range rep.Bugs {
		x.kinds |= 1 << f.Bug.Kind
	}
	x.executions, x.redundant, x.exhaustive = rep.Executions, rep.Dropped, rep.Exhaustive
	return x, nil
}

// reference explores body with dfs, at most limit executions, and collects
// the classes of its complete executions.
func reference(body func(), limit int) (*explored, error) {
	return explore(body, limit, func(conc *concolic.Config, on func(uint64)) engine.Engine {
		d := dfs.New(engine.Config{Concolic: conc}).(*dfs.Engine)
		d.OnComplete = on
		return d
	})
}

// optimal explores body with condpor, checking every graph it runs, and
// returns its complete executions by class.
func optimal(body func()) (map[uint64]int, error) {
	x, err := explore(body, 0, func(conc *concolic.Config, on func(uint64)) engine.Engine {
		c := condpor.New(engine.Config{Concolic: conc}).(*condpor.Engine)
		c.Verify = true
		c.OnComplete = on
		return c
	})
	if err != nil {
		return nil, err
	}
	return x.classes, nil
}
