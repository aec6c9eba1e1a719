// Package parallel explores one program with several workers, and explores
// one shard of an exploration split across machines.
//
// Each worker runs the program under its own runtime driver and engine. A
// worker that runs out of executions waits; the others see it between two
// executions and split their engine (engine.Splitter), handing over the
// last executions they have left. The exploration is thus cut into parts,
// each explored by one engine from start to end, and each a contiguous
// stretch of the order in which one engine alone explores: a part's key
// places it in that order. The counts are the parts' sums, and the first
// bug is the one of the earliest part: a bug stops the parts after it,
// while the parts before it run on, since they may hold an earlier one.
// The result is the one a single worker gets, whatever the timing. Once
// it splits for a waiting worker, the exploration holds 8 MB of memory for
// each worker but the first, so that the garbage collector, which has no
// core of its own then, runs less often.
//
// A shard i of n runs the start of the exploration, the same on every
// machine: one execution of each part in turn, splitting each as far as
// it goes, until there are enough parts (an engine that samples halves
// its executions instead, running none); then it keeps the parts whose
// rank is i modulo n. Shard 0 counts the executions of the start.
package parallel

import (
	"cmp"
	"errors"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// Config configures a parallel exploration.
type Config struct {
	// Runtime is the configuration of one driver: Engine is the engine
	// that starts the exploration and Concolic its concolic configuration,
	// not nil, whose Solver is given back when Run returns;
	// MaxExecutions and Timeout bound the whole exploration; Progress sees
	// the sums over the workers. Names and Between are the package's.
	Runtime runtime.Config
	// Solvers holds one solver per worker, none shared: their number is
	// the number of workers.
	Solvers []concolic.Solver
	// Shard and Shards select shard Shard of Shards (0 <= Shard < Shards);
	// Shards 0 or 1 is the whole exploration.
	Shard, Shards int
	// startEvents is startEvents but in tests, whose programs would
	// take seconds to reach it.
	startEvents int
}

// partsPerShard is how many parts a sharded exploration splits into
// before it deals them: many parts of uneven sizes dealt in turn even
// out. The start that makes them costs about as many executions, on
// every shard: CoarseList(6), 518,401 executions, splits into 4 shards of
// 117,070 to 141,475 with 256 parts per shard, of 77,092 to 198,146 with
// 8.
const partsPerShard = 256

// progressInterval is the least time between two progress reports.
const progressInterval = 250 * time.Millisecond

// splitAfter is how long an exploration runs on one worker before a part
// splits for the workers that wait: an exploration shorter than that,
// as most tests' are (a pool of two workers, 32 executions in a
// millisecond), is over before a second worker would pay for the copy
// of the graph it starts from and a driver of its own, which cost such
// an exploration 40% more CPU time than one worker.
const splitAfter = 10 * time.Millisecond

// ballastPerWorker is the memory that each worker but the first adds to
// the heap while the exploration runs (see run).
const ballastPerWorker = 8 << 20

// Run explores body as cfg says and returns the sums of the parts' reports.
// An engine that is not an engine.Splitter runs alone, on one worker, and
// is then a whole exploration, shard 0 of any number.
func Run(body func(), cfg Config) *runtime.Report {
	r, _, _ := run(body, cfg, false, nil)
	return r
}

// shape is how an exploration was cut: into parts, which waited for the
// parts before them (engine.Waiter) waits times in all.
type shape struct{ parts, waits int }

// Independent reports whether eng splits its exploration into parts that
// depend on nothing the others find (an engine.Splitter that is not an
// engine.Waiter): only those shard, and checkpoint what parts are done.
func Independent(eng engine.Engine) bool {
	_, splits := eng.(engine.Splitter)
	_, linked := eng.(engine.Waiter)
	return splits && !linked
}

// run is Run that also returns how the exploration was cut. With eager, a
// part splits whenever no part waits for a worker, not only when a worker
// waits: tests use it to cut small explorations into many parts. With ck,
// the exploration is checkpointed (see RunCheckpoint).
func run(body func(), cfg Config, eager bool, ck *Checkpoint) (*runtime.Report, shape, error) {
	start := time.Now()
	// The first part runs with the solver of the worker that takes it.
	defer func(c *concolic.Config, s concolic.Solver) { c.Solver = s }(cfg.Runtime.Concolic, cfg.Runtime.Concolic.Solver)
	// The parts share the check's values (package ic's analyses, which
	// cdpor's relation, copied from part to part, refers to).
	if cfg.Runtime.Locals == nil {
		cfg.Runtime.Locals = &runtime.Locals{}
		defer cfg.Runtime.Locals.Close()
	}
	p := &pool{cfg: cfg, start: start, eager: eager}
	p.cond.L = &p.mu
	if cfg.Runtime.Timeout > 0 {
		p.deadline = start.Add(cfg.Runtime.Timeout)
	}
	root := &part{key: []int32{}, conc: cfg.Runtime.Concolic, eng: cfg.Runtime.Engine, names: runtime.NewNames()}
	_, p.splits = cfg.Runtime.Engine.(engine.Splitter)
	_, p.sampling = cfg.Runtime.Engine.(engine.Sampler)
	// The parts of a Waiter depend on one another: a shard, or a part a
	// checkpoint records as done, would keep from the later parts what
	// the earlier ones found.
	independent := Independent(cfg.Runtime.Engine)
	if ck != nil {
		if !independent {
			return nil, shape{}, errors.New("the engine does not split its exploration into independent parts: it cannot be checkpointed")
		}
		p.ckpt = &checkpointer{ck: ck}
	}
	p.counted = cfg.Runtime.MaxExecutions > 0 || ck != nil && ck.Stop != nil
	switch {
	case (cfg.Shards > 1 || ck != nil) && independent:
		if err := p.open(body, root); err != nil {
			return nil, shape{}, err
		}
	case cfg.Shards > 1 && cfg.Shard != 0:
		return &runtime.Report{Ended: true, Exhaustive: true}, shape{}, nil
	default:
		p.queue = []*part{root}
	}
	workers := len(cfg.Solvers)
	if !p.splits {
		workers = 1
	}
	p.workers = workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		runtime.GoInternal(func() {
			defer wg.Done()
			p.work(body, cfg.Solvers[w])
		})
	}
	wg.Wait()
	goruntime.KeepAlive(p.ballast)
	r := p.sum()
	r.Elapsed = time.Since(start)
	if c := p.ckpt; c != nil {
		if !p.cut {
			if !p.stopped.Load() {
				c.mark()
			}
			// The end saves what the interval held back, and the
			// state of a run that finished no part.
			c.dirty = true
			c.save()
		}
		return r, shape{len(p.done), p.waits}, c.err
	}
	return r, shape{len(p.done), p.waits}, nil
}

// part is a part of the exploration, explored by one engine.
type part struct {
	// key places the part in the order of a single engine: a part comes
	// after the part it was split from, and before the parts split from
	// that part earlier (they were the last executions left then); see
	// before.
	key    []int32
	splits int32 // parts split from this one so far
	eng    engine.Engine
	conc   *concolic.Config
	names  *runtime.Names
	// seen is the number of executions the part had at its last
	// Between, for the pool's count.
	seen int
	// rep is the report of the part's exploration, and early that of
	// its executions in the start of a sharded exploration (nil if none).
	rep, early *runtime.Report
	// shared says that the part shares its term table with the other
	// parts of the start of a sharded exploration, which ran one after
	// the other: it takes a copy before it runs on a worker.
	shared bool
	// common says that the part's executions in a start are those of
	// the exploration's start, which every shard runs and shard 0
	// counts, not those of the start of a part (see level).
	common bool
	// size is, after the part's last execution in a start, how much a
	// part split from it copies (engine.Sizer).
	size int
	// origin is the part of a level of a checkpointed exploration that
	// the part is, or was split from after the level's start.
	origin *origin
}

// before reports whether key a comes before key b in the order of a single
// engine: a part's own executions come before the parts split from it, as
// a prefix before what extends it.
func before(a, b []int32) bool { return slices.Compare(a, b) < 0 }

// byKey orders parts by their keys.
func byKey(a, b *part) int { return slices.Compare(a.key, b.key) }

// pool holds the parts of the exploration and what the workers know of
// one another.
type pool struct {
	cfg      Config
	start    time.Time
	deadline time.Time
	splits   bool // the engine is an engine.Splitter
	// sampling says that the engine is an engine.Sampler: its parts end
	// (runtime.Report.Ended) without being exhaustive, and so does the
	// exploration.
	sampling bool
	eager    bool // see run
	// wanted counts the workers waiting for a part: the others split
	// their engine between two executions while it is not zero.
	wanted atomic.Int32
	// workers is the number of workers, and ballast the memory they hold
	// for the collector once the exploration splits (see between).
	workers int
	ballast []byte
	// executions counts the executions explored so far by every part,
	// against Runtime.MaxExecutions and for a checkpoint's Stop; counted
	// says that one of them needs it (see between).
	executions atomic.Int64
	counted    bool

	mu   sync.Mutex
	cond sync.Cond
	// queue holds the parts no worker has taken yet, and parked those
	// that wait for the parts before them (engine.Waiter).
	queue   []*part
	parked  []*part
	waits   int
	running int
	over    bool
	done    []*part
	// stopped says that a part stopped on a bug (or on an internal
	// error), and bound is the key of the earliest: the parts after it
	// are not part of the exploration. stopped changes under mu, but
	// between reads it without the lock.
	stopped atomic.Bool
	bound   []int32
	// started holds the parts that the start of a sharded exploration
	// ran; cut says that the timeout cut it short.
	started []*part
	cut     bool
	// ckpt is the checkpoint of a checkpointed exploration, interrupted
	// says that its Stop ended the exploration, and levels holds the
	// starts it ran.
	ckpt        *checkpointer
	interrupted atomic.Bool
	levels      []*level
	// progress holds the statistics of the parts that run, by part.
	progress     map[*part]runtime.Stats
	lastProgress time.Time
}

// work is a worker: it explores parts until there are none left.
func (p *pool) work(body func(), solver concolic.Solver) {
	for {
		pt := p.take()
		if pt == nil {
			return
		}
		if pt.shared {
			// The parts that share the table only read it now.
			pt.conc.Table = pt.conc.Table.Clone()
			pt.shared = false
		}
		cfg := p.config(pt, solver)
		pt.seen = 0 // a part that waited runs again, counted afresh
		cfg.Between = func(s runtime.Stats) bool { return p.between(pt, s) }
		if user := p.cfg.Runtime.Progress; user != nil {
			cfg.Progress = func(s runtime.Stats) { p.report(pt, s, user) }
		}
		rep := runtime.Run(body, cfg)
		p.finish(pt, rep)
	}
}

// config returns the configuration of a driver that explores pt with
// solver, under the exploration's timeout, counted from its start.
func (p *pool) config(pt *part, solver concolic.Solver) runtime.Config {
	pt.conc.Solver = solver
	cfg := p.cfg.Runtime
	cfg.Engine, cfg.Concolic, cfg.Names = pt.eng, pt.conc, pt.names
	cfg.MaxExecutions = 0 // the pool counts them for all parts
	cfg.Start = p.start
	return cfg
}

// take returns the earliest part no worker explores yet, waiting for one
// if need be, or nil when the exploration is over.
func (p *pool) take() *part {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.over {
			return nil
		}
		best := -1
		for i, pt := range p.queue {
			if best < 0 || before(pt.key, p.queue[best].key) {
				best = i
			}
		}
		if best >= 0 {
			pt := p.queue[best]
			p.queue = append(p.queue[:best], p.queue[best+1:]...)
			if p.after(pt) {
				continue
			}
			p.running++
			return pt
		}
		if p.running == 0 {
			p.over = true
			p.cond.Broadcast()
			return nil
		}
		p.wanted.Add(1)
		p.cond.Wait()
		p.wanted.Add(-1)
	}
}

// between runs on pt's driver between two executions: it says whether
// pt goes on, and splits pt's engine for the workers that wait.
func (p *pool) between(pt *part, s runtime.Stats) bool {
	if p.ckpt != nil && p.ckpt.failed.Load() {
		return false // a save failed: see checkpointer.err
	}
	// Adding to the shared count after every execution, with no limit
	// or Stop to check it against, only bounced its cache line between
	// the workers' cores.
	if p.counted {
		total := p.executions.Add(int64(s.Executions - pt.seen))
		pt.seen = s.Executions
		if limit := p.cfg.Runtime.MaxExecutions; limit > 0 && total >= int64(limit) {
			return false
		}
		if p.ckpt != nil && p.ckpt.ck.Stop != nil && (p.interrupted.Load() || p.ckpt.ck.Stop(total)) {
			p.interrupted.Store(true)
			return false
		}
	}
	if !p.splits {
		return true
	}
	// Most of the time no worker waits and no part stopped: then the
	// part goes on without the pool's lock, whose cache line bouncing
	// between two workers' cores, every execution, cost them 2-3% of
	// their CPU time on fib_bench.
	if !p.eager && p.wanted.Load() == 0 && !p.stopped.Load() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.after(pt) {
		return false
	}
	want := int(p.wanted.Load())
	if p.eager {
		want = max(want, 1)
	} else if want > 0 && time.Since(p.start) < splitAfter {
		return true
	}
	if want == 0 {
		return true
	}
	// The collector paces itself on the live heap, a few MB at most here,
	// and starts a cycle every 4 MB that the programs allocate, 20 times a
	// second on fib_bench with two workers. With a core per worker, no core
	// is left for it, and each cycle stops and slows every worker: two
	// workers ran fib_bench at 1.71 times one worker's speed, and at 1.82
	// times with a ballast of 8 MB, a block of no pointers that only raises
	// the collector's goal (GOGC=400 gave 1.84). Only an exploration that
	// splits holds it: one made for each of a test's short explorations
	// took them from 50 µs to several ms.
	if p.ballast == nil {
		p.ballast = make([]byte, ballastPerWorker*(p.workers-1))
	}
	for len(p.queue) < want {
		n := p.split(pt, false)
		if n == nil {
			break
		}
		p.queue = append(p.queue, n)
	}
	p.cond.Broadcast()
	return true
}

// split returns a new part with the last executions pt has left, or nil.
// The new part has a copy of pt's term table, or shares it (see
// part.shared).
func (p *pool) split(pt *part, share bool) *part {
	c := &concolic.Config{Table: pt.conc.Table, Domain: pt.conc.Domain}
	if !share {
		c.Table = c.Table.Clone()
	}
	eng := pt.eng.(engine.Splitter).Split(engine.Config{Concolic: c})
	if eng == nil {
		return nil
	}
	pt.splits++
	key := append(append([]int32(nil), pt.key...), -pt.splits)
	if pt.origin != nil {
		pt.origin.pending++
	}
	return &part{key: key, eng: eng, conc: c, names: pt.names.Clone(), shared: share, common: pt.common, origin: pt.origin}
}

// open runs the start of a sharded exploration from root, which cuts it
// into partsPerShard parts per shard or as many as it has; then it queues
// the shard's. It runs before the workers, on one solver and one term
// table, and does the same on every machine. A checkpointed exploration,
// sharded or not, starts the same way, and queues the parts not done,
// cutting those that earlier runs began and did not finish (see place):
// its error is that of a checkpoint that is not the exploration's.
func (p *pool) open(body func(), root *part) error {
	root.shared, root.common = true, true
	shards := max(p.cfg.Shards, 1)
	live := p.cutUp(body, root, partsPerShard*shards)
	var top *level
	if p.ckpt != nil && !p.cut {
		var start Counts
		if p.cfg.Shard == 0 {
			start = startCounts(p.started)
		}
		var err error
		if top, err = p.ckpt.root(live, start); err != nil {
			return err
		}
		p.levels = append(p.levels, top)
	}
	for i, pt := range live {
		if i%shards == p.cfg.Shard {
			if err := p.place(body, top, i, pt); err != nil {
				return err
			}
		}
	}
	return nil
}

// cutUp runs a start from pt, spread, or halve for a sampler, and returns
// the parts it cut pt into, at least want if it has as many.
func (p *pool) cutUp(body func(), pt *part, want int) []*part {
	if p.sampling {
		return p.halve(pt, want)
	}
	return p.spread(body, pt, want)
}

// place queues pt, part rank of the level l (nil when the exploration is
// not checkpointed), unless the run resumed from a checkpoint that has it
// done. A part that the checkpoint has cut is cut into parts by a start
// of its own, a level below l, whose parts are placed in turn.
func (p *pool) place(body func(), l *level, rank int, pt *part) error {
	switch {
	case p.after(pt) || p.cut:
		return nil
	case l == nil:
		p.queue = append(p.queue, pt)
		return nil
	case l.resumed(rank):
		return nil
	}
	cut := l.cut(rank)
	if cut == nil {
		pt.origin = p.ckpt.origin(l, rank)
		p.queue = append(p.queue, pt)
		return nil
	}
	// The part's start runs on a part of its own, whose executions are
	// the part's (pt's in the exploration's start are common), with a
	// table of its own: what the starts of other parts add to the
	// shared one would change its terms' ids from run to run. (The
	// engine keeps pt's configuration, whose table it reads.) Its
	// parts come before those split from pt in the exploration's start,
	// as the later splits of pt would.
	pt.conc.Table = pt.conc.Table.Clone()
	sub := &part{key: pt.key, splits: pt.splits, eng: pt.eng, conc: pt.conc, names: pt.names, shared: true}
	first := len(p.started)
	parts := p.cutUp(body, sub, cmp.Or(p.ckpt.ck.cutParts, partsPerShard))
	if p.cut {
		return nil // the timeout cut its start short: nothing is known of it
	}
	down, err := p.ckpt.enter(l, cut, parts, startCounts(p.started[first:]))
	if err != nil || down == nil {
		return err
	}
	p.levels = append(p.levels, down)
	for i, q := range parts {
		if err := p.place(body, down, i, q); err != nil {
			return err
		}
	}
	return nil
}

// startEvents bounds what the parts of a start hold, each a copy of the
// graph of the execution it split from, in events and their views'
// entries (engine.Sizer): x/sync's TestWeighted, whose executions have
// some 60,000 events, split its first as far as it went, a copy per
// alternative, for minutes and gigabytes, and its TestGoLimit, 17,000
// events of 1,025 goroutines, copied views of 1,025 entries for its
// whole timeout. The programs of weft's tests and benchmarks never reach
// it.
const startEvents = 1 << 22

// spread runs the start of an exploration from root, one execution of
// each part in turn, each then split as far as it goes, until there are
// want parts, or parts that hold startEvents events, or none left, and
// returns them in the order of their keys. The timeout, or an interrupt,
// cuts it short (p.cut).
func (p *pool) spread(body func(), root *part, want int) []*part {
	live := []*part{root}
	held := 0 // the events the parts of the last round hold
	bound := cmp.Or(p.cfg.startEvents, startEvents)
	for len(live) > 0 && len(live) < want && held < bound && !p.stopped.Load() && !p.cut {
		var next []*part
		held = 0
		for _, pt := range live {
			if p.stopped.Load() {
				next = append(next, pt)
				continue
			}
			if !p.step(body, pt) {
				if !pt.early.Ended && !p.stopped.Load() {
					p.cut = true
				}
				continue
			}
			// Split pt and its parts down to parts that do not split
			// before they run: the large subtrees, which have the most
			// alternatives, end up in the most parts.
			for todo := []*part{pt}; len(todo) > 0; todo = todo[1:] {
				next = append(next, todo[0])
				held += pt.size
				for held+(len(todo)-1)*pt.size < bound {
					if p.halted() {
						p.cut = true
						return nil
					}
					n := p.split(todo[0], true)
					if n == nil {
						break
					}
					todo = append(todo, n)
				}
			}
		}
		live = next
		slices.SortFunc(live, byKey)
	}
	return live
}

// halted reports whether a start is to stop: the timeout passed, or an
// interrupt came (Checkpoint.Interrupted).
func (p *pool) halted() bool {
	if !p.deadline.IsZero() && !time.Now().Before(p.deadline) {
		return true
	}
	if c := p.ckpt; c != nil && c.ck.Interrupted != nil && c.ck.Interrupted() {
		p.interrupted.Store(true)
		return true
	}
	return false
}

// halve cuts the executions of a sampler's root into want parts or more,
// as many as it splits into if fewer: it splits every part in two, level
// by level, which cuts them into parts of one size (a sampler's
// executions are all alike), and runs none of them in the start.
func (p *pool) halve(root *part, want int) []*part {
	live := []*part{root}
	for len(live) < want {
		next := make([]*part, 0, 2*len(live))
		for _, pt := range live {
			next = append(next, pt)
			if n := p.split(pt, true); n != nil {
				next = append(next, n)
			}
		}
		if len(next) == len(live) {
			break
		}
		live = next
	}
	slices.SortFunc(live, byKey)
	return live
}

// step runs one execution of pt in the start of a sharded exploration
// and reports whether pt has executions left.
func (p *pool) step(body func(), pt *part) bool {
	if pt.early == nil {
		pt.early = &runtime.Report{}
		p.started = append(p.started, pt)
	}
	cfg := p.config(pt, p.cfg.Solvers[0])
	ran := false
	cfg.Between = func(runtime.Stats) bool {
		if ran {
			return false
		}
		ran = true
		return true
	}
	rep := runtime.Run(body, cfg)
	p.executions.Add(int64(rep.Executions))
	e := pt.early
	add(&e.Stats, rep.Stats)
	pt.size = rep.Steps
	if s, ok := pt.eng.(engine.Sizer); ok {
		pt.size = s.Size()
	}
	e.Bugs = append(e.Bugs, rep.Bugs...)
	e.Ended, e.Exhaustive = rep.Ended, rep.Exhaustive
	if e.Internal == "" {
		e.Internal = rep.Internal
	}
	if p.stops(rep) || rep.Internal != "" {
		p.stop(pt)
		return false
	}
	return !rep.Ended && !p.halted()
}

// finish records the report of the part pt, whose engine returned, and
// queues the parked parts whose wait it ended.
func (p *pool) finish(pt *part, rep *runtime.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pt.rep = joined(pt.rep, rep)
	p.running--
	delete(p.progress, pt)
	if w, ok := pt.eng.(engine.Waiter); ok && w.Waits() && rep.Ended {
		// Not the part's end: it goes on once the parts before it end.
		// (A part that the timeout or a bug cut before its engine
		// said so is done: parked again, it would run again at once,
		// and be cut again, forever.)
		pt.rep.Ended, pt.rep.Exhaustive = false, false
		p.parked = append(p.parked, pt)
		p.waits++
	} else {
		p.done = append(p.done, pt)
		if p.stops(rep) || rep.Internal != "" {
			p.stop(pt)
		}
		if pt.origin != nil {
			p.ckpt.finish(pt.origin, rep, p.sampling)
		}
	}
	p.parked = slices.DeleteFunc(p.parked, func(q *part) bool {
		if q.eng.(engine.Waiter).Ready() {
			p.queue = append(p.queue, q)
			return true
		}
		return false
	})
	p.cond.Broadcast()
}

// joined returns the report of a part that ran as a and then as b (a may be
// nil): a part that waited for others runs again.
func joined(a, b *runtime.Report) *runtime.Report {
	if a == nil {
		return b
	}
	r := *a
	add(&r.Stats, b.Stats)
	if b.Executions+b.Dropped > 0 {
		r.Steps = b.Steps
	}
	r.Elapsed = b.Elapsed
	r.Bugs = append(slices.Clip(r.Bugs), b.Bugs...)
	r.Ended, r.Exhaustive = b.Ended, b.Exhaustive
	if r.Internal == "" {
		r.Internal = b.Internal
	}
	r.Unmodelled = r.Unmodelled || b.Unmodelled
	return &r
}

// stops reports whether the bugs of rep end the exploration.
func (p *pool) stops(rep *runtime.Report) bool {
	for _, f := range rep.Bugs {
		if !p.cfg.Runtime.AllBugs || f.Bug.NoReplay {
			return true
		}
	}
	return false
}

// report passes the sums of the parts' statistics to the progress
// function user.
func (p *pool) report(pt *part, s runtime.Stats, user func(runtime.Stats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.progress == nil {
		p.progress = map[*part]runtime.Stats{}
	}
	p.progress[pt] = s
	if time.Since(p.lastProgress) < max(p.cfg.Runtime.ProgressInterval, progressInterval) {
		return
	}
	p.lastProgress = time.Now()
	var sum runtime.Stats
	for _, d := range slices.Concat(p.done, p.parked) {
		add(&sum, d.rep.Stats)
	}
	for pt, r := range p.progress {
		add(&sum, r)
		if pt.rep != nil {
			add(&sum, pt.rep.Stats) // what it ran before it waited
		}
	}
	sum.Steps = s.Steps
	sum.Elapsed = time.Since(p.start)
	user(sum)
}

// add adds the counts of s to sum.
func add(sum *runtime.Stats, s runtime.Stats) {
	sum.Executions += s.Executions
	sum.Complete += s.Complete
	sum.Blocked += s.Blocked
	sum.Dropped += s.Dropped
}

// sum returns the report of the exploration: the parts up to the first
// that stopped on a bug, in the order of a single engine. The executions
// of the start of a sharded exploration are shard 0's.
func (p *pool) sum() *runtime.Report {
	// A part still parked waited for a part that a limit or a bug cut
	// short: its report is not exhaustive.
	// A part that ran in a start and then on a worker is in two lists.
	// The starts of the exploration and of one of its parts ran on two
	// parts with one key: a stable sort keeps them in the order they ran.
	var parts []*part
	listed := map[*part]bool{}
	for _, pt := range slices.Concat(p.started, p.done, p.parked) {
		if !listed[pt] {
			listed[pt] = true
			parts = append(parts, pt)
		}
	}
	slices.SortStableFunc(parts, byKey)
	r := &runtime.Report{Ended: !p.stopped.Load() && !p.cut && !p.interrupted.Load()}
	r.Exhaustive = r.Ended && !p.sampling
	if p.ckpt != nil && p.ckpt.ck.Resume != nil && !p.cut {
		for _, l := range p.levels {
			if l.old == nil {
				continue
			}
			for _, d := range l.old.Done {
				if !p.after(l.parts[d.Rank]) {
					add(&r.Stats, runtime.Stats{Executions: d.Executions, Complete: d.Complete, Blocked: d.Blocked, Dropped: d.Dropped})
				}
			}
		}
	}
	seen := map[string]bool{}
	include := func(rep *runtime.Report) {
		if r.Internal == "" {
			r.Internal = rep.Internal
		}
		add(&r.Stats, rep.Stats)
		r.Unmodelled = r.Unmodelled || rep.Unmodelled
		if rep.Executions+rep.Dropped > 0 {
			// The last execution is that of the last part that ran one:
			// a part split off may run none (the graph of 0 events of
			// weft test -workers 2).
			r.Steps = rep.Steps
		}
		for _, f := range rep.Bugs {
			k := f.Bug.Kind.String() + "\x00" + f.Bug.Message
			if !seen[k] {
				seen[k] = true
				r.Bugs = append(r.Bugs, f)
			}
		}
	}
	for _, pt := range parts {
		if p.after(pt) {
			continue
		}
		if pt.early != nil && (p.cfg.Shard == 0 || !pt.common) {
			include(pt.early)
		}
		if pt.rep != nil {
			include(pt.rep)
			r.Ended = r.Ended && pt.rep.Ended
			r.Exhaustive = r.Exhaustive && pt.rep.Exhaustive
		}
	}
	return r
}

// after reports whether pt comes after the part that stopped the
// exploration.
func (p *pool) after(pt *part) bool { return p.stopped.Load() && before(p.bound, pt.key) }

// stop records that the part pt stopped on a bug or an internal error, if
// it is the earliest to.
func (p *pool) stop(pt *part) {
	if !p.stopped.Load() || before(pt.key, p.bound) {
		p.bound = pt.key
		p.stopped.Store(true)
	}
}

// ParseShard parses a shard as "i/n", shard i of n, with 0 <= i < n.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || i < 0 || i >= n {
		return 0, 0, errors.New("not a shard i/n with 0 <= i < n, such as 0/4")
	}
	return i, n, nil
}
