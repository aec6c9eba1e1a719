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

// stateVersion is the version of the checkpoint file's format.
const stateVersion = 1

// Counts are the counts of a part of an exploration.
type Counts struct {
	Executions, Complete, Blocked, Dropped int
}

func countsOf(s runtime.Stats) Counts {
	return Counts{s.Executions, s.Complete, s.Blocked, s.Dropped}
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
	// Parts is the number of parts the start cut the exploration into,
	// and Start the counts of the start's executions (shard 0's, none
	// for the other shards): a resumed run checks that its start is the
	// same.
	Parts int
	Start Counts
	// Done holds the parts done, by rank.
	Done []Done
	// AllDone says that every part is done: a resumed run only runs the
	// start again, which finds the bugs of the start again.
	AllDone bool
}

// Done is a part done: its rank among the parts of the start, and its
// counts after the start. A resumed exploration that stops at a bug
// counts the parts before the bug's only, as one never stopped would,
// which with several workers may have been done before the bug was found.
type Done struct {
	Rank int
	Counts
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

// origin is a part of the start of a checkpointed exploration with the
// parts split from it since: it is done when all are, none cut short.
type origin struct {
	rank    int
	pending int // its parts not finished
	failed  bool
	counts  Counts
}

// checkpointer is the checkpoint of a running exploration, guarded by the
// pool's mutex.
type checkpointer struct {
	ck       *Checkpoint
	state    State
	dirty    bool
	lastSave time.Time
	// err is the first error of a save, after which the exploration
	// stops (failed): a run that went on would lose what it explored
	// since the last save to the next interrupt, or all of it at its end,
	// whose result the error replaces.
	err    error
	failed atomic.Bool
	// stopped says that ck.Stop ended the exploration.
	stopped bool
}

// begin checks the start of the exploration against the checkpoint it
// resumes from, and returns the ranks of the parts done.
func (c *checkpointer) begin(parts int, start Counts) (map[int]bool, error) {
	c.state.Parts, c.state.Start = parts, start
	r := c.ck.Resume
	if r == nil {
		return nil, nil
	}
	if r.Parts != parts || r.Start != start {
		return nil, fmt.Errorf("%w: its start cut it into %d parts with %d executions, this start into %d parts with %d executions", ErrMismatch, r.Parts, r.Start.Executions, parts, start.Executions)
	}
	done := map[int]bool{}
	for _, d := range r.Done {
		if d.Rank < 0 || d.Rank >= parts || done[d.Rank] {
			return nil, fmt.Errorf("%w: part %d is not one of its %d parts, or is done twice", ErrMismatch, d.Rank, parts)
		}
		done[d.Rank] = true
	}
	c.state.Done = slices.Clone(r.Done)
	return done, nil
}

// finish records that a part of o ended with rep, and saves the state
// when o is then done and the last save is old enough. A part is done
// when it ran to its end, exhaustive unless the engine samples, without
// a bug.
func (c *checkpointer) finish(o *origin, rep *runtime.Report, sampling bool) {
	o.pending--
	o.counts.add(countsOf(rep.Stats))
	if !rep.Ended || !rep.Exhaustive && !sampling || len(rep.Bugs) > 0 || rep.Internal != "" {
		o.failed = true
	}
	if o.pending > 0 || o.failed {
		return
	}
	c.state.Done = append(c.state.Done, Done{o.rank, o.counts})
	slices.SortFunc(c.state.Done, func(a, b Done) int { return a.Rank - b.Rank })
	c.dirty = true
	if time.Since(c.lastSave) >= c.ck.Interval {
		c.save()
	}
}

// save saves the state if it changed, keeping the first error.
func (c *checkpointer) save() {
	if !c.dirty || c.err != nil {
		return
	}
	s := c.state
	s.Version = stateVersion
	s.Done = slices.Clone(s.Done)
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
