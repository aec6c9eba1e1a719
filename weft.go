package weft

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/cdpor"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/internal/engine/qpor"
	"weft.dev/weft/internal/engine/random"
	"weft.dev/weft/internal/engine/replay"
	"weft.dev/weft/internal/engine/sdpor"
	"weft.dev/weft/internal/parallel"
	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/token"
)

// engines maps engine names to their constructors.
var engines = map[string]func(engine.Config) engine.Engine{
	"condpor": condpor.New,
	"dfs":     dfs.New,
	"random":  random.New,
	"sdpor":   sdpor.New,
	"mpor":    mpor.New,
	"qpor":    qpor.New,
	"cdpor":   cdpor.New,
}

// engineFor returns the constructor of the engine named spec: a name, or
// for engines with options a name, a colon and the options
// ("qpor:k=2").
func engineFor(spec string) (func(engine.Config) engine.Engine, error) {
	name, opts, hasOpts := strings.Cut(spec, ":")
	mk, ok := engines[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown engine %q (available: %s, and qpor:k=N)", name, strings.Join(engineNames(), ", "))
	case !hasOpts:
		return mk, nil
	case name != "qpor":
		return nil, fmt.Errorf("engine %q: %s takes no options", spec, name)
	}
	o, err := qpor.ParseOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("engine %q: %w", spec, err)
	}
	return o.New, nil
}

// Result holds the statistics of an exploration and the bugs it found.
type Result struct {
	Engine     string // engine that ran, e.g. "dfs"
	Executions int    // explored executions = Complete + Blocked
	Complete   int    // executions that ran to the end (or to a bug)
	Blocked    int    // executions cut short by an unsatisfied Assume, not bugs
	// Redundant counts the executions the engine abandoned because they
	// lead to nothing new, not counted in Executions: sdpor's sleep-set
	// blocked executions, mpor's dead ends (prefixes no quasi-monotonic
	// interleaving extends), qpor's sleep-set blocked executions (none
	// when optimal, unless an alternative pairs symbolic outcomes that
	// the path condition rules out together), condpor's rare goroutines
	// stranded by a revisit and its executions that reach a class of
	// channel operations by a route it does not count (see the engine's
	// channel model); always 0 for dfs and random.
	Redundant   int
	Bugs        []*Bug        // in order found; exploration stops at the first unless WithAllBugs
	Exhaustive  bool          // true when every execution was explored (no limit or timeout cut it)
	Elapsed     time.Duration // wall time of the exploration, without the replays of the bugs
	SolverCalls int           // SMT queries made
	SolverTime  time.Duration // time spent in the solver
	// Shard and Shards are the shard explored (WithShard): shard Shard of
	// Shards; Shards is 0 for the whole exploration.
	Shard, Shards int

	cut cut // what stopped an exploration that is not exhaustive
}

// cut says what stopped an exploration before its end, other than a bug.
type cut struct {
	why        string // e.g. "stopped by its timeout (5s)", "" for none
	atDeadline bool   // by go test's deadline, which Check reports
	checkpoint string // the checkpoint that holds what was explored, "" for none
}

// BugKind classifies bugs.
type BugKind int

// The kinds of bugs weft finds.
const (
	AssertionFailed BugKind = iota // Assert or sym.Assert failed
	Panic                          // the program under test panicked (incl. runtime errors)
	Deadlock                       // the body's goroutine is blocked forever with nothing runnable
	DataRace                       // conflicting accesses (of Vars, or of plain memory in code weft test rewrote) not ordered by happens-before
	StepLimit                      // a goroutine exceeded WithMaxSteps: livelock or infinite loop
	GoroutineLeak                  // goroutines still blocked when the body returned
	Nondeterminism                 // the program behaved differently when replayed
	Misuse                         // the program broke a rule of sync (unlock of unlocked mutex, negative WaitGroup)
)

// String returns the kind in words, e.g. "data race".
func (k BugKind) String() string { return engine.BugKind(k).String() }

// Bug is a bug found in an execution of the program.
type Bug struct {
	Kind    BugKind
	Message string
	Trace   Trace  // the events of the buggy execution, per goroutine, with file:line
	Replay  string // WithReplay(Replay) or WEFT_REPLAY=Replay re-runs exactly this execution
}

// Explore explores the executions of body and returns what it found. The
// error is for misuse or a bad configuration only; bugs in the program under
// test are in Result.Bugs.
//
// Checks do not nest: Explore (or Check) called by a goroutine of a running
// check does not return: it is a Misuse bug of the running check. Checks
// called from different goroutines (parallel tests) run at once.
func Explore(body func(), opts ...Option) (Result, error) {
	runtime.Nested("weft.Explore")
	res, err := explore(body, opts)
	if err == nil {
		err = writeGraph(res)
	}
	return res, err
}

func explore(body func(), opts []Option) (Result, error) {
	if body == nil {
		return Result{}, errors.New("weft: Explore called with a nil body")
	}
	c, err := newConfig(opts)
	if err != nil {
		return Result{}, fmt.Errorf("weft: %w", err)
	}
	name := programName(body)
	prog := token.Program(name)
	conc, err := c.concolic()
	if err != nil {
		return Result{}, fmt.Errorf("weft: %w", err)
	}
	defer conc.Close()
	if c.replay != "" {
		sched, err := token.Decode(c.replay, prog)
		if err != nil {
			return Result{}, fmt.Errorf("weft: WEFT_REPLAY/WithReplay: %w", err)
		}
		rep := runtime.Run(body, runtime.Config{Engine: replay.New(sched, conc.Config), Concolic: conc.Config, MaxSteps: c.maxSteps, Trace: true, StallTimeout: c.stallTimeout()})
		res := newResult("replay", rep)
		for _, f := range rep.Bugs {
			res.Bugs = append(res.Bugs, &Bug{Kind: BugKind(f.Bug.Kind), Message: f.Bug.Message, Trace: newTrace(report.New(f.Trace)), Replay: c.replay})
		}
		return res, nil
	}
	mk, err := engineFor(c.engine)
	if err != nil {
		return Result{}, fmt.Errorf("weft: WithEngine: %w", err)
	}

	cfg := runtime.Config{
		Engine:        mk(engine.Config{Seed: c.seed, Executions: c.maxExecutions, Concolic: conc.Config}),
		Concolic:      conc.Config,
		MaxExecutions: c.maxExecutions,
		MaxSteps:      c.maxSteps,
		AllBugs:       c.allBugs,
		StallTimeout:  c.stallTimeout(),
		Wrapped:       c.wrapped,
	}
	if _, ok := cfg.Engine.(engine.Sampler); ok {
		// The sampler runs as many executions as the limit says: the
		// workers need not count theirs against it.
		cfg.MaxExecutions = 0
	}
	var ck *checkpoint
	if c.checkpoint != "" {
		if !parallel.Independent(cfg.Engine) {
			return Result{}, fmt.Errorf("weft: WithCheckpoint: the engine %s cannot checkpoint its exploration (condpor, dfs, mpor and random can)", c.engine)
		}
		if c.checkpoint, err = checkpointFile(c, name); err != nil {
			return Result{}, fmt.Errorf("weft: WithCheckpoint: %w", err)
		}
		if ck, err = openCheckpoint(c, name); err != nil {
			return Result{}, fmt.Errorf("weft: WithCheckpoint: %w", err)
		}
		defer ck.close()
	}
	p, err := newProgress(c)
	if err != nil {
		return Result{}, fmt.Errorf("weft: %w", err)
	}
	p.attach(&cfg)
	var atDeadline bool
	cfg.Timeout, atDeadline = c.budget(time.Now())
	rep, calls, spent, err := run(body, cfg, c, conc, ck)
	if err != nil && rep == nil {
		return Result{}, fmt.Errorf("weft: %w", err)
	}
	// A checkpoint that could not be saved stopped the exploration (see
	// run): its result, and the bugs it found, come with the error.
	saveErr := err
	stop := cutOf(rep, c, cfg.Timeout, atDeadline, ck)
	p.finish(rep.Stats, stop.why)
	if rep.Internal != "" {
		return Result{}, fmt.Errorf("weft: internal error (a bug in weft, please report it): %s", rep.Internal)
	}
	res := newResult(c.engine, rep)
	res.cut = stop
	if rep.Unmodelled && rep.Executions == 1 && len(rep.Bugs) == 0 {
		// Once more, to tell the body's goroutines from another test's
		// that started meanwhile.
		again := cfg
		again.Engine, again.MaxExecutions, again.Progress = mk(engine.Config{Concolic: conc.Config}), 1, nil
		if runtime.Run(body, again).Unmodelled {
			return res, errUnmodelled
		}
	}
	res.SolverCalls, res.SolverTime = calls, spent
	res.Shard, res.Shards = c.shard, c.shards
	for _, f := range rep.Bugs {
		res.Bugs = append(res.Bugs, reproduce(body, prog, f, c, conc.Config))
	}
	if saveErr != nil {
		return res, fmt.Errorf("weft: stopped after %d executions: %w", res.Executions, saveErr)
	}
	if ck != nil && ck.interrupted.Load() && !res.Exhaustive {
		return res, fmt.Errorf("weft: interrupted after %d executions; run again with the checkpoint %s to resume%s", res.Executions, c.checkpoint, ck.note())
	}
	return res, nil
}

// errUnmodelled is the error of a body written in plain Go (see
// runtime.Report.Unmodelled).
var errUnmodelled = errors.New("weft: the body performed no operation that weft models, and goroutines that weft does not run " +
	"started while it ran (the go statement, or a library's): weft ran it once and explored nothing. Start goroutines with weft.Go " +
	"and synchronize with weft's packages (weft.dev/weft/sync, weft.dev/weft/atomic, weft.MakeChan...), or run the test with weft test, " +
	"which rewrites plain Go onto them in a package whose tests do not import weft")

// cutOf says what stopped the exploration of rep, which ran with c, the
// timeout and the checkpoint ck, when it is not exhaustive and no bug
// stopped it. A sampling engine, never exhaustive, has nothing to say
// when it took all its samples.
func cutOf(rep *runtime.Report, c *config, timeout time.Duration, atDeadline bool, ck *checkpoint) cut {
	switch {
	case rep.Exhaustive || len(rep.Bugs) > 0 && !c.allBugs:
		return cut{}
	case ck != nil && ck.interrupted.Load():
		return cut{why: "stopped by an interrupt" + ck.note()}
	case c.maxExecutions > 0 && rep.Executions >= c.maxExecutions:
		return cut{why: fmt.Sprintf("stopped at its limit of %d executions", c.maxExecutions)}
	case timeout > 0 && rep.Elapsed >= timeout && atDeadline:
		kept := ""
		if _, err := os.Stat(c.checkpoint); c.checkpoint != "" && err == nil {
			kept = c.checkpoint // unless the deadline cut its start short
		}
		return cut{why: "stopped before go test's deadline", atDeadline: true, checkpoint: kept}
	case timeout > 0 && rep.Elapsed >= timeout:
		return cut{why: fmt.Sprintf("stopped by its timeout (%v)", timeout) + ck.note()}
	}
	return cut{}
}

// run explores body as cfg says, with c's workers and shard, and returns
// the queries the solvers answered and their time. One worker and no
// shard, or an engine that does not split, is one driver; the other
// workers have solvers of their own.
// With ck, the exploration is checkpointed, with any number of workers;
// a save that failed stopped it, and comes as an error with its report.
func run(body func(), cfg runtime.Config, c *config, conc *concolicSetup, ck *checkpoint) (rep *runtime.Report, calls int, spent time.Duration, err error) {
	workers := c.workers
	switch {
	case cfg.MaxExecutions > 0:
		// One worker's limit cuts the same executions every time. (A
		// sampler's limit is the number of its executions, which its
		// parts share out: the driver has none.)
		workers = 1
	case runtime.PackageState():
		// The rewritten packages' variables are the process's: two
		// executions at once would share them.
		workers = 1
	case workers == 0:
		workers = goruntime.GOMAXPROCS(0)
	}
	_, splits := cfg.Engine.(engine.Splitter)
	if ck == nil && (!splits || workers == 1 && c.shards <= 1) {
		rep = runtime.Run(body, cfg)
		calls, spent = conc.stats()
		return rep, calls, spent, nil
	}
	setups := []*concolicSetup{conc}
	defer func() {
		for _, s := range setups[1:] {
			s.Close()
		}
	}()
	solvers := []concolic.Solver{conc.Solver}
	for len(solvers) < workers {
		s, err := c.concolic()
		if err != nil {
			return nil, 0, 0, err
		}
		setups = append(setups, s)
		solvers = append(solvers, s.Solver)
	}
	pc := parallel.Config{Runtime: cfg, Solvers: solvers, Shard: c.shard, Shards: c.shards}
	if ck != nil {
		if rep, err = parallel.RunCheckpoint(body, pc, ck.config(c)); err != nil {
			// With a report, the exploration ran and a save failed.
			err = fmt.Errorf("WithCheckpoint: %s: %w", c.checkpoint, err)
		}
	} else {
		rep = parallel.Run(body, pc)
	}
	for _, s := range setups {
		n, d := s.stats()
		calls += n
		spent += d
	}
	return rep, calls, spent, err
}

// reproduce replays a bug's execution once with tracing on to build its
// report. A replay that does not reproduce the bug means the program is
// nondeterministic, which is reported instead.
func reproduce(body func(), prog uint32, f runtime.Found, c *config, conc *concolic.Config) *Bug {
	b := &Bug{Kind: BugKind(f.Bug.Kind), Message: f.Bug.Message}
	if f.Bug.NoReplay {
		return b
	}
	run := func(sched []engine.Choice, trace bool) *runtime.Report {
		return runtime.Run(body, runtime.Config{Engine: replay.New(sched, conc), Concolic: conc, MaxSteps: c.maxSteps, Trace: trace, StallTimeout: c.stallTimeout()})
	}
	m := minimal(f, run)
	b.Replay = token.Encode(prog, m.Schedule)
	rep := run(m.Schedule, true)
	if len(rep.Bugs) == 0 {
		b.Kind = Nondeterminism
		b.Message = fmt.Sprintf("the program did something different when the execution was replayed (it had found: %s: %s): %s, or a goroutine not started with weft.Go?", f.Bug.Kind, f.Bug.Message, engine.Unreplayable)
		return b
	}
	r := rep.Bugs[0]
	if r.Bug.Kind != f.Bug.Kind {
		b.Kind = Nondeterminism
		b.Message = fmt.Sprintf("the program did something different when the execution was replayed: it had found %s (%s), the replay found %s (%s)", f.Bug.Kind, f.Bug.Message, r.Bug.Kind, r.Bug.Message)
	} else {
		b.Message = r.Bug.Message
	}
	if r.Trace != nil {
		b.Trace = newTrace(traceOf(r.Trace, m))
		if r.Bug.Stack != "" {
			b.Message += "\n\n" + r.Bug.Stack
		}
	}
	return b
}

func newResult(name string, rep *runtime.Report) Result {
	return Result{
		Engine:     name,
		Executions: rep.Executions,
		Complete:   rep.Complete,
		Blocked:    rep.Blocked,
		Redundant:  rep.Dropped,
		Exhaustive: rep.Exhaustive,
		Elapsed:    rep.Elapsed,
	}
}

func engineNames() []string { return slices.Sorted(maps.Keys(engines)) }

// Check explores body under the checker and fails t with a readable report
// for every bug found: the bug's kind and message, the interleaving as a
// table with a column per goroutine and file:line positions, the statistics,
// and the two commands (weft test and go test) that rerun just that
// execution. With WEFT_JSON set it also appends a JSON record of the check
// to that file. It returns the statistics.
//
// Under go test's deadline (-timeout, 10 minutes by default), an
// exploration that would still run then stops before it, a twentieth of
// the time left (1 s to 30 s) ahead, and fails t with the executions it
// explored and how to get further, rather than leave go test to end the
// test binary with a dump of its goroutines. A bound set on purpose
// (WithTimeout, WithMaxExecutions) that comes first passes t.
//
// t.FailNow (t.Fatal, t.Fatalf) called inside body, or in a goroutine it
// starts, ends that goroutine, as runtime.Goexit does: weft reports it as an
// AssertionFailed bug of that execution, with its trace, and stops
// exploring; prefer Assert. See Limits in weft's README for what weft
// cannot stop (goroutines started with go, loops without a weft operation,
// blocking on what weft does not model).
func Check(t testing.TB, body func(), opts ...Option) Result {
	t.Helper()
	runtime.Nested("weft.Check")
	caller, wrappedTest := checkCaller()
	pkg := testPackage(caller)
	opts = append(slices.Clip(opts), named(pkg+" "+t.Name()))
	if wrappedTest {
		opts = append(opts, wrapped())
	}
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := d.Deadline(); ok {
			opts = append(opts, until(at))
		}
	}
	res, err := Explore(body, opts...)
	if rerr := recordCheck(pkg, t.Name(), res, err); rerr != nil {
		t.Errorf("weft: %v", rerr)
	}
	// An exploration that stopped with an error (an interrupt, a
	// checkpoint that could not be saved) may have found bugs before.
	for _, b := range res.Bugs {
		t.Errorf("%s", checkReport(b, res, t.Name(), pkg))
	}
	if err != nil {
		t.Fatal(err)
		return res
	}
	if res.cut.atDeadline && len(res.Bugs) == 0 {
		t.Errorf("%s", deadlineReport(res))
	}
	return res
}

// deadlineReport says that the exploration of res stopped before go
// test's deadline, which would otherwise have ended the test binary with
// a dump of its goroutines: the test fails, as it would have, but with
// what was explored and how to get further.
func deadlineReport(res Result) string {
	head := fmt.Sprintf("weft: the exploration did not end before go test's deadline: it stopped after %d executions (%v), which found no bug",
		res.Executions, res.Elapsed.Round(time.Millisecond))
	if ck := res.cut.checkpoint; ck != "" {
		return head + ". The checkpoint " + ck + " holds what was explored: run the test again, with more time (go test -timeout, " +
			"or weft test -- -timeout) or more workers, and it resumes from there."
	}
	return head + ", and the rest is unexplored. Give it more time (go test -timeout, or weft test -- -timeout), " +
		"more workers (weft test -workers, WithWorkers), a checkpoint to resume from (weft test -checkpoint, WithCheckpoint), " +
		"or bound it on purpose (weft test -timeout or -max-executions, WithTimeout, WithMaxExecutions), which passes."
}

// runPattern is the -run pattern that selects exactly the test name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexpQuote(p) + "$"
	}
	return strings.Join(parts, "/")
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkCaller returns the import path of the package that called Check,
// and whether that call is rewritten.Check's, for a test that weft test
// rewrote: the package is then that of the test.
func checkCaller() (pkg string, wrapped bool) {
	var pcs [2]uintptr
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(3, pcs[:])]) // Callers, checkCaller, Check
	f, more := frames.Next()
	if f.Function == "weft.dev/weft/rewritten.Check" && more {
		wrapped = true
		f, _ = frames.Next()
	}
	return packageOf(f.Function), wrapped
}

// packageOf returns the import path of the package of the function name,
// "." when it has none.
func packageOf(name string) string {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return "."
	}
	return strings.TrimSuffix(name[:slash+1+dot], "_test")
}

// programName identifies body for replay tokens by where its function is
// defined: the function's name would change with inlining (a closure
// inlined into two callers has two names) and the full path with the
// checkout.
func programName(body func()) string {
	f := goruntime.FuncForPC(reflect.ValueOf(body).Pointer())
	if f == nil {
		return ""
	}
	file, line := f.FileLine(f.Entry())
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}
