package runtime

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"weft.dev/weft/internal/engine"
)

// escapeGrace is how long the classification of a deadlock or a leak waits
// for goroutines that escaped the checker to call a weft operation, which
// reports them as a misuse: a goroutine that a dependency weft test did not
// rewrite starts (errgroup's Go) runs the program's rewritten function,
// whose first channel operation may come after every modelled goroutine
// blocked.
const escapeGrace = 100 * time.Millisecond

// escaped returns the goroutines that weft does not run and that goroutines
// of d started, directly or not. Reading the stacks costs more than an
// execution: once they showed none, they are read again only when more
// goroutines run, the workers' coroutines aside. The first read of a
// check does not trust the count, which other checks of the process
// change.
func (d *driver) escaped() []dumped {
	others := runtime.NumGoroutine() - int(d.coroutines.Load())
	if d.clean > 0 && others <= d.clean {
		return nil
	}
	out := d.readEscaped()
	d.clean = 0
	if len(out) == 0 {
		d.clean = others
	}
	return out
}

// readEscaped is escaped, from the stacks of all goroutines.
func (d *driver) readEscaped() []dumped {
	gs := parseDump(allStacks())
	byGo := make(map[int64]*dumped, len(gs))
	for i := range gs {
		byGo[gs[i].id] = &gs[i]
	}
	var out []dumped
	for _, g := range gs {
		reporting := slices.ContainsFunc(g.frames, isStrayFrame)
		if g.worker || strings.HasPrefix(g.state, "coroutine") || slices.ContainsFunc(g.frames, isRuntimeFrame) && !reporting {
			// A worker, maybe one whose coroutine has not started a
			// goroutine's function yet, a coroutine (iter.Pull), which
			// runs only when the goroutine that pulls it waits, or a
			// goroutine in weft's hands; but a stray on its way to its
			// report counts.
			continue
		}
		for c, n := g.creator, 0; c != 0 && n < len(gs); n++ {
			if w := byID(c); w != nil {
				if w.d == d {
					out = append(out, g)
				}
				break
			}
			p := byGo[c]
			if p == nil || p.worker {
				break
			}
			c = p.creator
		}
	}
	return out
}

// isRuntimeFrame reports whether a frame of a dump ("function\n\tfile:line")
// runs this package's code.
func isRuntimeFrame(frame string) bool {
	return strings.HasPrefix(frame, modulePrefix+"internal/runtime.")
}

// isStrayFrame reports whether a frame of a dump runs the handling of a
// stray call, which the goroutine reports.
func isStrayFrame(frame string) bool {
	for _, f := range []string{"foreign", "whose", "(*driver).strayCall", "strayAccess"} {
		if strings.HasPrefix(frame, modulePrefix+"internal/runtime."+f+"\n") {
			return true
		}
	}
	return false
}

// strayed reports whether the execution, about to end as a deadlock or a
// leak, has goroutines outside the checker: it ends with their misuse when
// one calls a weft operation within escapeGrace, and otherwise returns a
// note that names them, for the bug's message (what they do may wake the
// goroutines that wait).
func (x *execution) strayed() (note string, over bool) {
	esc := x.d.escaped()
	if len(esc) > 0 {
		for deadline := time.Now().Add(escapeGrace); x.d.stray.Load() == nil && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	// A stray call made before, while the stacks were read (the stacks
	// count no stray in weft's hands), or meanwhile.
	if x.strayFailed() {
		return "", true
	}
	if len(esc) == 0 {
		return "", false
	}
	var starts []string
	for _, g := range esc {
		if !slices.Contains(starts, g.createdBy) {
			starts = append(starts, g.createdBy)
		}
	}
	what := fmt.Sprintf("%d goroutines that weft does not run, started by %s, were", len(esc), strings.Join(starts, ", "))
	if len(esc) == 1 {
		what = fmt.Sprintf("a goroutine that weft does not run, started by %s, was", starts[0])
	}
	return " (" + what + " still there: what they do may wake the goroutines that wait; " +
		"a goroutine started by a package weft test did not rewrite (a dependency) runs outside the checker: rewrite the package with -rewrite)", false
}

// strayFailed ends the execution with the misuse of a stray call, if one
// was made, and reports whether it did.
func (x *execution) strayFailed() bool {
	m := x.d.stray.Load()
	if m != nil {
		x.fail(&engine.Bug{Kind: engine.Misuse, Message: *m, G: -1, NoReplay: true})
	}
	return m != nil
}
