package parallel

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"weft.dev/weft/internal/runtime"
)

// A checkpointed exploration runs the start of a sharded one (see open),
// which cuts the exploration into parts the same way on every run, and
// records which of those parts are done: a part is done once its engine,
// and those of every part split from it later, ran to the end without a
// bug and without being cut. A run that resumes from the checkpoint runs
// the start again (a few hundred executions, which also tell whether the
// checkpoint is of this exploration) and explores only the parts not
// done. Nothing of an engine is serialized: the parts that were running
// when the run stopped start over, and the counts of a resumed run are
// those of one that was never stopped.
//
// A part that a run began and did not finish is recorded as cut: the
// next run cuts it into parts with a start of its own, as the
// exploration's start cuts the whole, and records which of those are
// done, and so on down. Otherwise a part longer than a run would start
// over in every run and never be done (x/sync's semaphore tests, run for
// 5 to 40 s at a time, got no further after their 94th part). A part
// whose parts are all done is done, with the counts of its start and of
// its parts.

// stateVersion is the version of the checkpoint file's format.
const stateVersion = 1

// Counts are the counts of a part of an exploration.
type Counts struct {
	Executions, Complete, Blocked, Dropped int
}

func countsOf(s runtime.Stats) Counts {
	return Counts{s.Executions, s.Complete, s.Blocked, s.Dropped}
}

// startCounts returns the counts of the executions that parts ran in a
// start.
func startCounts(parts []*part) Counts {
	var c Counts
	for _, pt := range parts {
		c.add(countsOf(pt.early.Stats))
	}
	return c
}

func (c *Counts) add(d Counts) {
	c.Executions += d.Executions
	c.Complete += d.Complete
	c.Blocked += d.Blocked
	c.Dropped += d.Dropped
}

// State is the checkpoint of an exploration.
type State struct {
	Version int
	// Fingerprint identifies the program, the engine and the options
	// that change the exploration: the caller sets it, and refuses a
	// checkpoint whose fingerprint is not the exploration's.
	Fingerprint string
	// Level holds the exploration's start and its parts: Start has the
	// counts of shard 0 (none for the other shards, whose start is shard
	// 0's).
	Level
	// AllDone says that every part is done: a resumed run only runs the
	// start again, which finds the bugs of the start again.
	AllDone bool
	// Progressed says that the run added to the state it resumed from:
	// a part done, or one cut or to be cut. It is not written: a run
	// that did not progress had its time taken by the starts, and the
	// next needs more.
	Progressed bool `json:"-"`
}

// Level is a start, of the exploration or of a part of it, and what is
// done of the parts it cut it into.
type Level struct {
	// Parts is the number of parts the start cut its exploration into,
	// and Start the counts of its executions: a resumed run checks that
	// its start is the same.
	Parts int
	Start Counts
	// Done holds the parts done, by rank.
	Done []Done
	// Cut holds the parts that a run began and did not finish, by rank:
	// each with the start that cut it into parts, or with no Parts
	// before the next run ran that start.
	Cut []*Cut `json:",omitempty"`
}

// Cut is a part cut into parts of its own: its rank among the parts of
// its level, and its level.
type Cut struct {
	Rank int
	Level
}

// Done is a part done: its rank among the parts of its level, and its
// counts after the level's start. A resumed exploration that stops at a
// bug counts the parts before the bug's only, as one never stopped would,
// which with several workers may have been done before the bug was found.
type Done struct {
	Rank int
	Counts
}

// clone returns a copy of l that shares nothing with it.
func (l Level) clone() Level {
	l.Done = slices.Clone(l.Done)
	if l.Cut != nil {
		cuts := make([]*Cut, len(l.Cut))
		for i, c := range l.Cut {
			cuts[i] = &Cut{c.Rank, c.Level.clone()}
		}
		l.Cut = cuts
	}
	return l
}

// check checks that l is the record of a start that cut its exploration
// into parts parts with the counts start, and that the ranks of its
// parts done and cut are ranks of its parts, each at most once.
func (l *Level) check(parts int, start Counts) error {
	if l.Parts != parts || l.Start != start {
		return fmt.Errorf("%w: its start cut it into %d parts with %d executions, this start into %d parts with %d executions", ErrMismatch, l.Parts, l.Start.Executions, parts, start.Executions)
	}
	seen := map[int]bool{}
	for _, r := range slices.Concat(ranks(l.Done, func(d Done) int { return d.Rank }), ranks(l.Cut, func(c *Cut) int { return c.Rank })) {
		if r < 0 || r >= l.Parts || seen[r] {
			return fmt.Errorf("%w: part %d is not one of its %d parts, or is done or cut twice", ErrMismatch, r, l.Parts)
		}
		seen[r] = true
	}
	return nil
}

// ranks returns the ranks of xs.
func ranks[T any](xs []T, rank func(T) int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = rank(x)
	}
	return out
}

// Checkpoint configures the checkpoint of an exploration.
type Checkpoint struct {
	// Resume is the state the exploration resumes from, nil to start
	// afresh; its Fingerprint is the caller's business.
	Resume *State
	// Save writes a state: each time a part is done, at most once per
	// Interval, and when the exploration ends, unless the timeout cut
	// its start short. The state is the Save's to keep.
	Save     func(*State) error
	Interval time.Duration
	// Stop, called between executions with the number of executions of
	// this run so far, ends the exploration (an interrupt) when it
	// returns true; the start of the exploration does not stop.
	Stop func(executions int64) bool
	// Interrupted, when set, reports an interrupt, which also stops a
	// start: a start cut short adds nothing to the checkpoint.
	Interrupted func() bool
	// cutParts is how many parts the start of a part cut by an earlier
	// run cuts it into: 0 for partsPerShard, fewer in tests, whose
	// programs' parts are too small to need a second cut otherwise.
	cutParts int
}

// ErrMismatch is the error of RunCheckpoint when the checkpoint it
// resumes from is not of the exploration it runs.
var ErrMismatch = errors.New("the checkpoint is not of this exploration")

// RunCheckpoint is Run with a checkpoint. It explores with the
// engine's parts however many workers there are, and fails with an
// error that wraps ErrMismatch when the start of the exploration is not
// the one of ck.Resume, or with the first error of ck.Save. The engine
// must be an engine.Splitter.
func RunCheckpoint(body func(), cfg Config, ck Checkpoint) (*runtime.Report, error) {
	r, _, err := run(body, cfg, false, &ck)
	return r, err
}

// level is a start of the running exploration: the exploration's own,
// or that of a part an earlier run cut.
type level struct {
	parent *level // nil for the exploration's
	rank   int    // the part's rank among its parent's parts
	// rec is its record in the checkpointer's state, and old that in
	// the state the run resumed from (nil if none).
	rec, old *Level
	// parts holds the parts its start cut it into, by rank.
	parts []*part
}

// resumed reports whether the state the run resumed from has part rank
// of l done.
func (l *level) resumed(rank int) bool {
	return l.old != nil && slices.ContainsFunc(l.old.Done, func(d Done) bool { return d.Rank == rank })
}

// cut returns the record of part rank of l if it is cut, else nil.
func (l *level) cut(rank int) *Cut {
	if i := slices.IndexFunc(l.rec.Cut, func(c *Cut) bool { return c.Rank == rank }); i >= 0 {
		return l.rec.Cut[i]
	}
	return nil
}

// uncut removes part rank of l from its parts cut: it is done.
func (l *level) uncut(rank int) {
	l.rec.Cut = slices.DeleteFunc(l.rec.Cut, func(c *Cut) bool { return c.Rank == rank })
}

// origin is a part of a level of a checkpointed exploration with the
// parts split from it since: it is done when all are, none cut short.
type origin struct {
	level   *level
	rank    int
	pending int  // its parts not finished
	began   bool // one of its parts ran an execution
	failed  bool // one of its parts was cut short or had a bug
	bug     bool // one of its parts had a bug
	done    bool
	counts  Counts
}

// checkpointer is the checkpoint of a running exploration, guarded by the
// pool's mutex.
type checkpointer struct {
	ck       *Checkpoint
	state    State
	dirty    bool
	lastSave time.Time
	// origins holds the parts of the levels that the run explores.
	origins []*origin
	// err is the first error of a save, after which the exploration
	// stops (failed): a run that went on would lose what it explored
	// since the last save to the next interrupt, or all of it at its end,
	// whose result the error replaces.
	err    error
	failed atomic.Bool
	// stopped says that ck.Stop ended the exploration.
	stopped bool
}

// root checks the exploration's start, which cut it into parts, against
// the checkpoint it resumes from, and returns its level.
func (c *checkpointer) root(parts []*part, start Counts) (*level, error) {
	c.state.Parts, c.state.Start = len(parts), start
	l := &level{rec: &c.state.Level, parts: parts}
	r := c.ck.Resume
	if r == nil {
		return l, nil
	}
	if err := r.check(len(parts), start); err != nil {
		return nil, err
	}
	c.state.Level = r.Level.clone()
	l.old = &r.Level
	return l, nil
}

// enter records that the start of cut, part rank of l, cut it into parts
// with the counts start, or checks them against the record of an earlier
// run. It returns the part's level, or nil when the part is done: its
// start explored all of it.
func (c *checkpointer) enter(l *level, cut *Cut, parts []*part, start Counts) (*level, error) {
	if cut.Parts == 0 {
		if len(cut.Done) > 0 || len(cut.Cut) > 0 {
			return nil, fmt.Errorf("%w: its part %d has parts done or cut before its start ran", ErrMismatch, cut.Rank)
		}
		cut.Parts, cut.Start = len(parts), start
		c.state.Progressed, c.dirty = true, true
		if len(parts) == 0 {
			l.uncut(cut.Rank)
			c.done(l, cut.Rank, start)
			return nil, nil
		}
	} else if err := cut.check(len(parts), start); err != nil {
		return nil, fmt.Errorf("its part %d: %w", cut.Rank, err)
	}
	sub := &level{parent: l, rank: cut.Rank, rec: &cut.Level, parts: parts}
	if l.old != nil {
		if i := slices.IndexFunc(l.old.Cut, func(o *Cut) bool { return o.Rank == cut.Rank }); i >= 0 {
			sub.old = &l.old.Cut[i].Level
		}
	}
	return sub, nil
}

// origin returns the origin of part rank of l, which the run explores.
func (c *checkpointer) origin(l *level, rank int) *origin {
	o := &origin{level: l, rank: rank, pending: 1}
	c.origins = append(c.origins, o)
	return o
}

// finish records that a part of o ended with rep, and saves the state
// when o is then done and the last save is old enough. A part is done
// when it ran to its end, exhaustive unless the engine samples, without
// a bug.
func (c *checkpointer) finish(o *origin, rep *runtime.Report, sampling bool) {
	o.pending--
	o.counts.add(countsOf(rep.Stats))
	if rep.Executions+rep.Dropped > 0 {
		o.began = true
	}
	if len(rep.Bugs) > 0 || rep.Internal != "" {
		o.bug = true
	}
	if !rep.Ended || !rep.Exhaustive && !sampling || o.bug {
		o.failed = true
	}
	if o.pending > 0 || o.failed {
		return
	}
	o.done = true
	c.done(o.level, o.rank, o.counts)
	if time.Since(c.lastSave) >= c.ck.Interval {
		c.save()
	}
}

// done records that part rank of l is done, with the counts n; a level
// whose parts are then all done is done in turn, with its start's counts
// and theirs.
func (c *checkpointer) done(l *level, rank int, n Counts) {
	l.rec.Done = append(l.rec.Done, Done{rank, n})
	slices.SortFunc(l.rec.Done, func(a, b Done) int { return a.Rank - b.Rank })
	c.state.Progressed, c.dirty = true, true
	if l.parent == nil || len(l.rec.Done) < l.rec.Parts {
		return
	}
	total := l.rec.Start
	for _, d := range l.rec.Done {
		total.add(d.Counts)
	}
	l.parent.uncut(l.rank)
	c.done(l.parent, l.rank, total)
}

// mark records as cut the parts that the run began and did not finish,
// for the next run to cut them into parts; a part with a bug is not
// done anyway, and is explored again whole.
func (c *checkpointer) mark() {
	for _, o := range c.origins {
		if o.began && !o.done && !o.bug {
			o.level.rec.Cut = append(o.level.rec.Cut, &Cut{Rank: o.rank})
			slices.SortFunc(o.level.rec.Cut, func(a, b *Cut) int { return a.Rank - b.Rank })
			c.state.Progressed, c.dirty = true, true
		}
	}
}

// save saves the state if it changed, keeping the first error.
func (c *checkpointer) save() {
	if !c.dirty || c.err != nil {
		return
	}
	s := c.state
	s.Version = stateVersion
	s.Level = s.Level.clone()
	s.AllDone = len(s.Done) == s.Parts
	if err := c.ck.Save(&s); err != nil {
		c.err = err
		c.failed.Store(true)
	}
	c.dirty = false
	c.lastSave = time.Now()
}

// ReadState reads the checkpoint file. A file that does not exist is a
// nil state and no error.
func ReadState(file string) (*State, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("checkpoint %s: not a checkpoint of weft: %w", file, err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("checkpoint %s: version %d, this weft reads version %d", file, s.Version, stateVersion)
	}
	return &s, nil
}

// Writable returns the error that WriteState would meet creating the
// file that it renames to file, if any: a run checks it before it
// explores, rather than at its first save.
func Writable(file string) error {
	f, err := createTemp(file)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// createTemp creates the file that WriteState writes and renames to file,
// in file's directory so that the rename is atomic.
func createTemp(file string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*.tmp")
}

// WriteState writes the checkpoint file atomically: a reader, or a run
// killed while it writes, sees the old file or the new one.
func WriteState(file string, s *State) error {
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	f, err := createTemp(file)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("checkpoint %s: %w", file, err)
	}
	return nil
}
