// Package minimize makes the interleaving of a bug easier to follow: it
// searches, within a small budget, for a schedule with fewer goroutine
// switches that reproduces the same bug.
//
// The search is greedy. A schedule is a sequence of blocks, each a run of
// steps of one goroutine. For two blocks of the same goroutine with other
// blocks between them, it tries moving the later one up to join the earlier
// one and the earlier one down to join the later one, also after moving a
// single step from one to the other. A candidate is kept when replaying it
// gives the same bug (same kind and message) with fewer switches, and the
// search starts over from it. A candidate that does not fit the program (a
// goroutine that cannot perform its step there) makes the replay report
// nondeterminism, a different bug: it is simply not kept.
package minimize

import (
	"iter"
	"slices"
	"time"

	"weft.dev/weft/internal/engine"
)

// Budget bounds the search.
type Budget struct {
	Runs int           // replays
	Time time.Duration // wall time
}

// DefaultBudget is small enough to be unnoticeable next to an exploration.
var DefaultBudget = Budget{Runs: 200, Time: time.Second}

// Run replays a schedule and returns the first bug of the execution (nil if
// there was none) and the schedule the execution actually took, which is
// shorter than the one given when the bug happens earlier.
type Run func(sched []engine.Choice) (*engine.Bug, []engine.Choice)

// Result is the outcome of a search.
type Result struct {
	Schedule []engine.Choice // the schedule with the fewest switches found
	Switches int             // of Schedule
	Original int             // switches of the schedule the search started from
	Runs     int             // replays made
}

// Minimized reports whether the search found a better schedule.
func (r Result) Minimized() bool { return r.Switches < r.Original }

// Schedule searches for a schedule with fewer switches than sched that
// reproduces bug, replaying candidates with run.
func Schedule(sched []engine.Choice, bug *engine.Bug, run Run, b Budget) Result {
	res := Result{Schedule: sched, Switches: Switches(sched)}
	res.Original = res.Switches
	deadline := time.Now().Add(b.Time)
	for improved := true; improved; {
		improved = false
		for c := range candidates(res.Schedule) {
			if res.Runs >= b.Runs || time.Now().After(deadline) {
				return res
			}
			if Switches(c) >= res.Switches {
				continue
			}
			res.Runs++
			got, took := run(c)
			if got == nil || got.Kind != bug.Kind || got.Message != bug.Message {
				continue
			}
			if n := Switches(took); n < res.Switches {
				res.Schedule, res.Switches = took, n
				improved = true
				break
			}
		}
	}
	return res
}

// Switches counts the steps of sched taken by another goroutine than the
// step before.
func Switches(sched []engine.Choice) int {
	n := 0
	for i := 1; i < len(sched); i++ {
		if sched[i].G != sched[i-1].G {
			n++
		}
	}
	return n
}

// block is a maximal run of steps of one goroutine: sched[start:end].
type block struct {
	g          int32
	start, end int
}

func blocks(sched []engine.Choice) []block {
	var bs []block
	for i, c := range sched {
		if i == 0 || c.G != sched[i-1].G {
			bs = append(bs, block{g: c.G, start: i})
		}
		bs[len(bs)-1].end = i + 1
	}
	return bs
}

// candidates yields the schedules to try: first those that merge two
// blocks of a goroutine (merges), then those that move one step of a
// goroutine next to its other steps (shifts), alone and followed by each
// merge. A shift alone rarely removes a switch, but it can make a merge
// possible: in a lost update, where each goroutine loads then stores, the
// body's load must move up next to its go before the other goroutine's
// load and store can join. Candidates are made one at a time: a long
// schedule has many.
func candidates(sched []engine.Choice) iter.Seq[[]engine.Choice] {
	return func(yield func([]engine.Choice) bool) {
		for c := range merges(sched) {
			if !yield(c) {
				return
			}
		}
		for s := range shifts(sched) {
			if !yield(s) {
				return
			}
			for c := range merges(s) {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// pairs yields each block of sched with the next block of the same
// goroutine; those earlier in the schedule come first, as changing them
// changes less of what follows.
func pairs(sched []engine.Choice) iter.Seq2[block, block] {
	return func(yield func(block, block) bool) {
		bs := blocks(sched)
		for i, a := range bs {
			for _, b := range bs[i+1:] {
				if b.g == a.g {
					if !yield(a, b) {
						return
					}
					break
				}
			}
		}
	}
}

// merges yields the schedules that merge a block with the next block of
// its goroutine, by moving the later one up or the earlier one down.
func merges(sched []engine.Choice) iter.Seq[[]engine.Choice] {
	return func(yield func([]engine.Choice) bool) {
		for a, b := range pairs(sched) {
			if !yield(slices.Concat(sched[:a.end], sched[b.start:b.end], sched[a.end:b.start], sched[b.end:])) ||
				!yield(slices.Concat(sched[:a.start], sched[a.end:b.start], sched[a.start:a.end], sched[b.start:])) {
				return
			}
		}
	}
}

// shifts yields the schedules that move the first step of a block up to
// the end of the previous block of its goroutine, or the last step of a
// block down to the start of the next one.
func shifts(sched []engine.Choice) iter.Seq[[]engine.Choice] {
	return func(yield func([]engine.Choice) bool) {
		for a, b := range pairs(sched) {
			if !yield(slices.Concat(sched[:a.end], sched[b.start:b.start+1], sched[a.end:b.start], sched[b.start+1:])) ||
				!yield(slices.Concat(sched[:a.end-1], sched[a.end:b.start], sched[a.end-1:a.end], sched[b.start:])) {
				return
			}
		}
	}
}
