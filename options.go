package weft

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"weft.dev/weft/internal/parallel"
)

// An Option configures Check and Explore. Every option can also be set from
// the environment (WEFT_ENGINE, WEFT_MAX_EXECUTIONS, WEFT_TIMEOUT, WEFT_SEED,
// WEFT_REPLAY, WEFT_PROGRESS, WEFT_MAX_STEPS, WEFT_ALL_BUGS,
// WEFT_STALL_TIMEOUT, WEFT_WORKERS, WEFT_SHARD, WEFT_CHECKPOINT), which overrides the options given in code so that
// `go test` users need no code change. A variable with a value that does
// not parse is an error that names it.
type Option func(*config)

type config struct {
	engine        string
	maxExecutions int
	timeout       time.Duration
	seed          uint64
	maxSteps      int
	allBugs       bool
	replay        string
	progress      io.Writer
	progressFile  string // WEFT_PROGRESS=FILE
	solver        string
	domain        *[2]int64
	stall         time.Duration
	stallSet      bool
	name          string // of the check, for its progress lines: "pkg TestName"
	workers       int    // 0: GOMAXPROCS
	shard, shards int    // shards 0: not sharded
	checkpoint    string // the checkpoint file, "" for none
	// interruptFile is weft test's (WEFT_INTERRUPT=FILE): it makes the
	// file at the first interrupt, which its test binaries do not see
	// (see openCheckpoint).
	interruptFile string
	// stopAfter, for tests, stops a checkpointed exploration after as
	// many executions, as an interrupt would.
	stopAfter int64
	// deadline is go test's, for Check: the exploration stops early
	// enough for the test to report before go test ends the process.
	deadline time.Time
	// wrapped says that Check runs a test that weft test rewrote (see
	// runtime.Config.Wrapped).
	wrapped bool
}

// WithEngine selects the exploration engine: "condpor" (the default)
// explores each equivalence class of executions exactly once (optimal
// dynamic partial order reduction), "dfs" explores every interleaving (the
// reference, exponential: for small programs) and "random" samples
// executions. "sdpor" (source-DPOR with sleep sets) and "mpor" (monotonic
// partial order reduction) explore interleavings, each Mazurkiewicz trace
// of weft's independence relation at least once (sdpor) or exactly once
// (mpor), and count the executions they abandon in Result.Redundant; they
// are there to compare the algorithms on one program. "qpor" (quasi-optimal
// partial order reduction) explores the unfolding of the same relation,
// each trace exactly once and none redundantly; "qpor:k=N" computes
// cheaper, k-partial alternatives, which may lead to redundant
// (sleep-set blocked) executions, counted in Result.Redundant. "cdpor"
// (constrained DPOR) is sdpor exploring by conditional independence:
// stores of the same value commute, and so do the critical sections that
// sync.Mutex.LockCommuting declares commuting, and the sections of a
// sync.Monitor's effects under the condition that weft synthesizes for
// them with its SMT solver; it explores, for every trace, an execution
// that reaches the same state, never more executions than sdpor.
func WithEngine(name string) Option { return func(c *config) { c.engine = name } }

// WithMaxExecutions stops the exploration after n executions; the result is
// then not exhaustive. For the random engine it is the number of samples
// (1,000 by default).
func WithMaxExecutions(n int) Option { return func(c *config) { c.maxExecutions = n } }

// WithTimeout stops the exploration after d; the result is then not
// exhaustive.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithSeed seeds the random choices (of the random engine), so that a run
// can be repeated: execution k draws from a stream of random numbers
// seeded by the seed and k, whichever worker or shard runs it.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithMaxSteps sets how many operations a goroutine may perform in one
// execution before a StepLimit bug (an infinite loop or a livelock) is
// reported. The default is 100,000.
func WithMaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// WithStallTimeout bounds how long a goroutine of the program may run
// without a weft operation (Var, sync, atomic, channel, Go, Join, Assert...)
// before the check gives up with a StepLimit bug that shows the goroutine's
// stack: it loops in plain Go, or blocks on something weft does not model
// (a channel, mutex or WaitGroup of the standard library, time.Sleep, I/O).
// The default is 10 seconds; once WithTimeout's time has passed, one second
// is enough. Go cannot stop a goroutine, so weft abandons it, and the check
// returns without it (see Limits in weft's README). d = 0 turns the bound
// off, as one may want under a debugger, whose breakpoints stop the
// program but not the clock; WithTimeout still ends a stalled execution.
func WithStallTimeout(d time.Duration) Option {
	return func(c *config) { c.stall, c.stallSet = d, true }
}

// WithAllBugs keeps exploring after a bug, reporting each distinct bug once.
func WithAllBugs() Option { return func(c *config) { c.allBugs = true } }

// WithWorkers explores with n workers, each on its own goroutine, which
// share the work: a worker that runs out takes some of the executions
// another has left. The result is the one a single worker gets, whatever
// the timing: the same counts, the same first bug (the first in the
// order of a single worker; a bug stops the workers only once no
// execution before it is left), the same bugs with WithAllBugs. The
// default is GOMAXPROCS. The other workers take work only once the
// exploration has run 10 ms: a shorter one runs on one worker, which is
// faster than sharing it. The engines condpor, dfs, mpor, sdpor, cdpor and
// random split their exploration; qpor runs with one worker (see the
// README for why), as does an exploration with WithMaxExecutions, so that
// the limit cuts the same executions every time, except with random,
// whose limit is the number of its executions, which its workers share
// out. With more than one worker, executions of the body run at
// once, on different goroutines: a body that records something outside
// itself (a count, the outcomes it saw) must guard it with a mutex of
// the standard library, as a test with t.Parallel would, and one that
// keeps its state in plain variables declared outside it (with weft/atomic's
// functions) needs one worker; weft's objects declared outside it (a
// Var, an atomic.Int32, a Mutex) are each execution's own. Code that weft
// test rewrote, whose package variables every execution resets, runs
// with one worker.
func WithWorkers(n int) Option { return func(c *config) { c.workers = n } }

// WithShard explores shard i of n (0 <= i < n): a part of the executions
// that depends only on the program, i and n, such that the n shards are
// disjoint and together the whole exploration. Every shard runs the same
// first executions until the exploration has split into enough parts,
// which shard 0 counts, then keeps its share of the parts; their counts
// add up exactly to the whole exploration's (see weft merge for the
// results of weft test -json). Each shard stops at its own first bug
// unless WithAllBugs, so with a bug the counts are the shards' own. The
// engines condpor, dfs, mpor and random split their exploration into
// independent parts (random runs no first executions: it halves its
// executions into parts of one size); with the others (sdpor's and cdpor's parts hand the races they
// find to the parts after them), shard 0 is the whole exploration and the
// other shards are empty.
func WithShard(i, n int) Option { return func(c *config) { c.shard, c.shards = i, n } }

// WithCheckpoint keeps a checkpoint of the exploration in file, and
// resumes from it when it exists: a run stopped by its timeout, by an
// interrupt (SIGINT, Ctrl-C: the check then fails and says so, and the
// checkpointed checks that the process starts after it fail without
// running) or killed, and run again with the same file, explores only
// what the run before had left, and ends with the counts of a run never
// stopped. The
// exploration is cut into parts (as for WithShard: a start of a few
// hundred executions, run again on resume, cuts it the same way each
// time); the file records the parts done, written atomically when a part
// is done (at most every 10 seconds) and when the check ends. A part
// running when the run stopped starts over, cut into parts by a start of
// its own, so that a part longer than a run gets done over several. A
// file of another check, of
// another engine or of options that change the exploration (WithShard,
// WithAllBugs, WithMaxSteps, WithSolver, WithExplicitDomain) is an
// error; the file of a finished exploration gives its result again (and
// its bugs, found again). With the random engine, WithSeed and
// WithMaxExecutions change the exploration too. One file holds one check;
// a directory (one that exists, or a path that ends with a separator,
// made if need be) holds a file per check, named after it and its shard.
// The engines condpor, dfs, mpor and random checkpoint, with any number of
// workers; the others are an error. A file that cannot be written (its
// directory does not exist, or is not writable) is an error before the
// exploration starts; a write that fails later stops the exploration
// with its error (and the Result of what it explored, bugs included),
// the file as the last write left it.
func WithCheckpoint(file string) Option { return func(c *config) { c.checkpoint = file } }

// WithReplay re-runs exactly the execution of a Bug.Replay token.
func WithReplay(token string) Option { return func(c *config) { c.replay = token } }

// WithProgress shows the progress of the exploration on w: on a terminal a
// line rewritten at most four times a second, elsewhere a plain line every
// two seconds, and a last line with the totals. The line gives the
// executions, their rate, the complete and blocked counts, the elapsed time
// and the size of the last execution's graph. WEFT_PROGRESS=1 shows it on
// the standard error; WEFT_PROGRESS=FILE (an absolute name) appends it to
// FILE.
func WithProgress(w io.Writer) Option { return func(c *config) { c.progress = w } }

// named names the check in its progress lines, so that among the checks
// of a go test run one can tell which is the one that runs long.
func named(name string) Option { return func(c *config) { c.name = name } }

// WithSolver selects the solver for symbolic values: "builtin" (pure Go, the
// default) or "z3" (libz3 loaded at run time).
func WithSolver(name string) Option { return func(c *config) { c.solver = name } }

// WithExplicitDomain makes every symbolic input an explicit choice among the
// values lo..hi instead of solving constraints: the ExEn baseline.
func WithExplicitDomain(lo, hi int64) Option {
	return func(c *config) { c.domain = &[2]int64{lo, hi} }
}

// defaultEngine is the engine used when none is chosen.
const defaultEngine = "condpor"

func newConfig(opts []Option) (*config, error) {
	c := &config{engine: defaultEngine, solver: "builtin"}
	for _, o := range opts {
		o(c)
	}
	if err := c.fromEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	if c.maxExecutions < 0 {
		return nil, fmt.Errorf("WithMaxExecutions(%d): the limit must not be negative", c.maxExecutions)
	}
	if c.maxSteps < 0 {
		return nil, fmt.Errorf("WithMaxSteps(%d): the limit must not be negative", c.maxSteps)
	}
	if c.timeout < 0 {
		return nil, fmt.Errorf("WithTimeout(%v): the timeout must not be negative", c.timeout)
	}
	if c.stall < 0 {
		return nil, fmt.Errorf("WithStallTimeout(%v): the bound must not be negative (0 turns it off)", c.stall)
	}
	if c.workers < 0 {
		return nil, fmt.Errorf("WithWorkers(%d): the number of workers must not be negative", c.workers)
	}
	if c.shards < 0 || c.shards > 0 && (c.shard < 0 || c.shard >= c.shards) {
		return nil, fmt.Errorf("WithShard(%d, %d): want 0 <= i < n", c.shard, c.shards)
	}
	if d := c.domain; d != nil && d[0] > d[1] {
		return nil, fmt.Errorf("WithExplicitDomain(%d, %d): the domain is empty", d[0], d[1])
	}
	return c, nil
}

// fromEnv applies the WEFT_* variables.
func (c *config) fromEnv(lookup func(string) (string, bool)) error {
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
	}
	if v, ok := get("WEFT_ENGINE"); ok {
		if _, err := engineFor(v); err != nil {
			return fmt.Errorf("WEFT_ENGINE=%q: %w", v, err)
		}
		c.engine = v
	}
	count := func(name, v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: not a whole number", name, v)
		}
		if n < 0 {
			return 0, fmt.Errorf("%s=%q: must not be negative", name, v)
		}
		return n, nil
	}
	duration := func(name, v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: not a duration such as 30s or 5m", name, v)
		}
		if d < 0 {
			return 0, fmt.Errorf("%s=%q: must not be negative", name, v)
		}
		return d, nil
	}
	if v, ok := get("WEFT_MAX_EXECUTIONS"); ok {
		n, err := count("WEFT_MAX_EXECUTIONS", v)
		if err != nil {
			return err
		}
		c.maxExecutions = n
	}
	if v, ok := get("WEFT_MAX_STEPS"); ok {
		n, err := count("WEFT_MAX_STEPS", v)
		if err != nil {
			return err
		}
		c.maxSteps = n
	}
	if v, ok := get("WEFT_TIMEOUT"); ok {
		d, err := duration("WEFT_TIMEOUT", v)
		if err != nil {
			return err
		}
		c.timeout = d
	}
	if v, ok := get("WEFT_STALL_TIMEOUT"); ok {
		d, err := duration("WEFT_STALL_TIMEOUT", v)
		if err != nil {
			return err
		}
		c.stall, c.stallSet = d, true
	}
	if v, ok := get("WEFT_SEED"); ok {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return fmt.Errorf("WEFT_SEED=%q: not an unsigned integer", v)
		}
		c.seed = n
	}
	if v, ok := get("WEFT_WORKERS"); ok {
		n, err := count("WEFT_WORKERS", v)
		if err != nil {
			return err
		}
		c.workers = n
	}
	if v, ok := get("WEFT_SHARD"); ok {
		i, n, err := parallel.ParseShard(v)
		if err != nil {
			return fmt.Errorf("WEFT_SHARD=%q: %w", v, err)
		}
		c.shard, c.shards = i, n
	}
	if v, ok := get("WEFT_CHECKPOINT"); ok && !inherited {
		c.checkpoint = v
	}
	if v, ok := get("WEFT_INTERRUPT"); ok && !inherited {
		c.interruptFile = v
	}
	if v, ok := get("WEFT_REPLAY"); ok {
		c.replay = v
	}
	if v, ok := get("WEFT_ALL_BUGS"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("WEFT_ALL_BUGS=%q: not a boolean", v)
		}
		c.allBugs = b
	}
	if v, ok := get("WEFT_PROGRESS"); ok && !inherited {
		b, err := strconv.ParseBool(v)
		switch {
		case filepath.IsAbs(v):
			// A file such as /dev/tty: the weft command's terminal, which
			// go test does not give its test binaries.
			c.progress, c.progressFile = nil, v
		case err != nil:
			return fmt.Errorf("WEFT_PROGRESS=%q: neither a boolean nor an absolute file name", v)
		case b:
			c.progress = os.Stderr
		default:
			c.progress = nil
		}
	}
	return nil
}

// until makes Check's exploration end before go test's deadline d (see
// budget).
func until(d time.Time) Option { return func(c *config) { c.deadline = d } }

// wrapped marks Check's exploration of a test that weft test rewrote.
func wrapped() Option { return func(c *config) { c.wrapped = true } }

// budget returns the exploration's timeout, which ends it in time for
// go test's deadline when that comes first, and whether it does. It leaves
// a twentieth of the time left (1 s to 30 s), for the execution that runs
// at the timeout (a stalled one gets 1 s), the bugs' replays, the
// checkpoint and the test's report.
func (c *config) budget(now time.Time) (timeout time.Duration, atDeadline bool) {
	if c.deadline.IsZero() {
		return c.timeout, false
	}
	left := c.deadline.Sub(now)
	margin := min(max(left/20, min(time.Second, left/2)), 30*time.Second)
	b := max(left-margin, time.Nanosecond) // 0 would be no timeout
	if c.timeout > 0 && c.timeout <= b {
		return c.timeout, false
	}
	return b, true
}

// stallTimeout is the runtime's Config.StallTimeout: 0 for the default,
// negative for none.
func (c *config) stallTimeout() time.Duration {
	switch {
	case !c.stallSet:
		return 0
	case c.stall == 0:
		return -1
	}
	return c.stall
}
