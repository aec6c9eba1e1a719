package runtime

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"weft.dev/weft/internal/engine"
)

// The watchdog. A goroutine of the program runs on a coroutine that the
// driver resumes; if it never hands the turn back (it loops in plain Go, or
// blocks on a channel, mutex or sleep that weft does not model), the driver
// waits forever. Run's goroutine watches: the driver sets nothing per
// operation, but every operation clears driver.beat, which the watchdog sets
// at each tick, so that it knows how long the program has gone without an
// operation. Past a bound (Config.StallTimeout; shorter once the
// exploration's Timeout has passed) it looks at the stacks of all
// goroutines for the worker that holds the turn. If that goroutine is in
// the program's code (not in weft's engine, which may be slow), the
// execution is abandoned: a goroutine cannot be preempted or killed, so the
// goroutine, the driver and the execution's other coroutines are left where
// they are, and Run returns with a bug that names the goroutine and shows
// its stack. Whatever the abandoned goroutines do later, they touch no
// check: a weft operation they call ends them with runtime.Goexit (see
// running and foreign), and the driver stops as soon as it is resumed. Each
// check has its own watchdog, which looks at its own worker only.
//
// The same watchdog ends a check at once when a goroutine started with the
// go statement called a weft operation (a stray call) and the execution
// does not reach its next operation, which would report it, within
// strayGrace: typically the body waits on a real channel for that
// goroutine.

// DefaultStallTimeout is how long a goroutine may run without a weft
// operation before the watchdog abandons its execution.
const DefaultStallTimeout = 10 * time.Second

const (
	// lateStall replaces a longer stall bound once the exploration's
	// Timeout has passed: the check must end soon after it.
	lateStall = time.Second
	// strayGrace is how long the driver has to report a stray call itself.
	strayGrace = 100 * time.Millisecond
)

// watch waits for the driver to close done, and returns nil then; or it
// abandons the exploration and returns its report.
func (d *driver) watch(done <-chan struct{}) *Report {
	bound := d.cfg.StallTimeout
	if bound == 0 {
		bound = DefaultStallTimeout
	}
	shortest := bound
	if d.cfg.Timeout > 0 && (shortest < 0 || shortest > lateStall) {
		shortest = lateStall
	}
	tick := 250 * time.Millisecond
	if shortest > 0 {
		tick = min(tick, max(shortest/10, 5*time.Millisecond))
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var strayTimer <-chan time.Time
	last := time.Now() // when an operation was last seen
	d.beat.Store(1)
	for {
		select {
		case <-done:
			return nil
		case <-d.wake:
			if strayTimer == nil {
				strayTimer = time.After(strayGrace)
			}
			continue
		case <-strayTimer:
			strayTimer = nil
			if r := d.giveUp(done, 0, false); r != nil {
				return r
			}
			// The driver is in weft's code: it reaches the stray's report by
			// itself, or the stall bound catches it.
			continue
		case now := <-t.C:
			late := d.cfg.Timeout > 0 && now.Sub(d.start) >= d.cfg.Timeout
			if late {
				d.late.Store(true)
			}
			if d.beat.Load() == 0 {
				last = now
				d.beat.Store(1)
				continue
			}
			b := bound
			if late && (b < 0 || b > lateStall) {
				b = lateStall
			}
			if b < 0 || now.Sub(last) < b {
				continue
			}
			if r := d.giveUp(done, now.Sub(last), late); r != nil {
				return r
			}
			last = now // weft itself is busy: look again after another bound
		}
	}
}

// giveUp abandons the exploration if a goroutine of the program holds the
// turn and is in the program's code, and returns the report; it returns nil
// when the driver finished meanwhile or weft's own code is running. stalled
// is how long no operation happened, 0 for a stray call.
func (d *driver) giveUp(done <-chan struct{}, stalled time.Duration, late bool) *Report {
	select {
	case <-done:
		return nil
	default:
	}
	// The atomic loads order the driver's writes before them (x.cur before
	// the switch, the report before the execution began) before the reads
	// below; the driver is suspended while a goroutine of the program runs.
	x := d.live.Load()
	if x == nil {
		return nil
	}
	turn := x.curID.Load()
	g := x.cur
	stuck := findStuck(parseDump(allStacks()), turn)
	if stuck == nil {
		return nil
	}
	var b *engine.Bug
	if m := d.stray.Load(); m != nil {
		b = &engine.Bug{Kind: engine.Misuse, Message: *m, G: -1, NoReplay: true}
	} else {
		who := "a goroutine"
		id := int32(-1)
		if g != nil {
			who, id = x.describe(g), g.ID
		}
		var msg string
		if stuck.running() {
			msg = fmt.Sprintf("%s ran %s s without a weft operation: an unbounded loop? weft cannot stop a goroutine: it abandoned it, and it keeps running", who, seconds(stalled))
		} else {
			msg = fmt.Sprintf("%s ran %s s without a weft operation: blocked outside weft (a real channel, mutex or time.Sleep?), waiting in [%s]; weft abandoned it", who, seconds(stalled), stuck.state)
		}
		if late {
			msg += " (the exploration's timeout had passed)"
		} else {
			msg += " (raise the bound with WithStallTimeout or WEFT_STALL_TIMEOUT)"
		}
		msg += "\n\n" + stuck.program()
		b = &engine.Bug{Kind: engine.StepLimit, Message: msg, G: id, NoReplay: true}
	}
	return d.abandon(b)
}

// abandon gives the exploration up with bug b: the driver stops at its first
// chance, and its workers are remembered as abandoned.
func (d *driver) abandon(b *engine.Bug) *Report {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.abandoned.Store(true)
	x := d.live.Swap(nil)
	d.epoch.Store(0)
	bury(d)
	r := &Report{Stats: d.report.Stats, Bugs: slices.Clone(d.report.Bugs)}
	if d.unwinding.Load() && x != nil && x.ending.Kind == engine.Buggy {
		// The execution had a bug and was being unwound: report it too,
		// without a replay, which would stall again.
		pb := *x.ending.Bug
		pb.NoReplay = true
		r.Bugs = append(r.Bugs, Found{Bug: &pb})
	}
	r.Executions++
	r.Complete++
	r.Bugs = append(r.Bugs, Found{Bug: b})
	return r
}

// graveyard holds the Go goroutine ids of the workers of abandoned
// executions, and so of the goroutines they started with the go statement,
// after those workers ended.
var graveyard = struct {
	sync.Mutex
	ids map[int64]bool
}{ids: map[int64]bool{}}

func buried(id int64) bool {
	graveyard.Lock()
	defer graveyard.Unlock()
	return graveyard.ids[id]
}

// seconds formats d in seconds for a message: "10", "2.5", "0.25".
func seconds(d time.Duration) string {
	scale := 10.0
	if d < time.Second {
		scale = 100
	}
	return strconv.FormatFloat(math.Round(d.Seconds()*scale)/scale, 'f', -1, 64)
}

// runName is the name of the function at the bottom of every worker's
// program: the goroutines whose stack holds it are weft's workers. It is
// set by init, as run reaches (through the classification of deadlocks)
// the parsing of dumps that uses it.
var runName string

func init() { runName = runtime.FuncForPC(reflect.ValueOf((*goroutine).run).Pointer()).Name() }

// dumped is a goroutine of a dump of all stacks.
type dumped struct {
	id        int64
	state     string   // "running", "chan receive", "coroutine"...
	creator   int64    // 0 if none
	createdBy string   // the go statement that started it: "function at file:line"
	frames    []string // "function\n\tfile:line", innermost first
	worker    bool     // runs a modelled goroutine
}

// running reports whether the goroutine runs (as opposed to waiting).
func (g *dumped) running() bool {
	return strings.HasPrefix(g.state, "running") || strings.HasPrefix(g.state, "runnable")
}

// innermost returns the innermost frame's function outside the Go runtime.
func (g *dumped) innermost() string {
	for _, f := range g.frames {
		fn, _, _ := strings.Cut(f, "\n")
		if !strings.HasPrefix(fn, "runtime.") {
			return fn
		}
	}
	return ""
}

// program returns the goroutine's header and its stack without the frames
// of the Go runtime and of weft.
func (g *dumped) program() string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d [%s]:\n", g.id, g.state)
	for _, f := range g.frames {
		fn, loc, _ := strings.Cut(f, "\n")
		file, _, _ := strings.Cut(strings.TrimSpace(loc), ":")
		if isWeftFrame(fn) || isWeftFile(file) || strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "iter.") {
			continue
		}
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.String()
}

// findStuck returns the worker with Go id id, which holds the turn, if it
// runs the program's code: not when it is suspended (the driver runs) or
// in weft's own code.
func findStuck(gs []dumped, id int64) *dumped {
	for i := range gs {
		g := &gs[i]
		if g.id != id || !g.worker || strings.HasPrefix(g.state, "coroutine") {
			continue
		}
		if fn := g.innermost(); isWeftFrame(fn) && strings.HasPrefix(fn, modulePrefix+"internal/") {
			return nil // weft's engine at work, on the program's goroutine
		}
		return g
	}
	return nil
}

// allStacks returns the stacks of all goroutines, as runtime.Stack formats
// them.
func allStacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// selfID returns the Go id of the calling goroutine.
func selfID() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _ := header(string(buf[:n]))
	return id
}

// header parses "goroutine 12 [state]:" (and what follows it).
func header(s string) (id int64, state string) {
	rest, ok := strings.CutPrefix(s, "goroutine ")
	if !ok {
		return 0, ""
	}
	num, rest, _ := strings.Cut(rest, " ")
	id, _ = strconv.ParseInt(num, 10, 64)
	if rest, ok = strings.CutPrefix(rest, "["); ok {
		state, _, _ = strings.Cut(rest, "]")
	}
	return id, state
}

// parseDump parses the output of runtime.Stack(buf, true).
func parseDump(s string) []dumped {
	var gs []dumped
	for _, block := range strings.Split(s, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		id, state := header(lines[0])
		if id == 0 {
			continue
		}
		g := dumped{id: id, state: state}
		for i := 1; i < len(lines); i++ {
			l := lines[i]
			if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "...") || strings.HasPrefix(l, "goroutine ") {
				continue
			}
			if c, ok := strings.CutPrefix(l, "created by "); ok {
				fn, in, ok := strings.Cut(c, " in goroutine ")
				if ok {
					g.creator, _ = strconv.ParseInt(strings.TrimSpace(in), 10, 64)
				}
				g.createdBy = fn
				if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
					pos := strings.TrimSpace(lines[i+1])
					if sp := strings.LastIndex(pos, " +0x"); sp >= 0 {
						pos = pos[:sp]
					}
					g.createdBy += " at " + filepath.Base(pos)
				}
				break
			}
			fn := l
			if p := strings.LastIndexByte(l, '('); p > 0 {
				fn = l[:p]
			}
			pos := ""
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
				pos = strings.TrimSpace(lines[i+1])
				if sp := strings.LastIndex(pos, " +0x"); sp >= 0 {
					pos = pos[:sp]
				}
				i++
			}
			if fn == runName {
				g.worker = true
			}
			g.frames = append(g.frames, fn+"\n\t"+pos)
		}
		gs = append(gs, g)
	}
	return gs
}

// owner says to whom a goroutine calling a weft operation out of turn
// belongs.
type owner uint8

const (
	ownerUnknown   owner = iota // started with go, by goroutines that ended, while several checks run
	ownerCheck                  // started with go inside a running check: a stray
	ownerAbandoned              // a worker of an abandoned execution, or started by one
	ownerOutside                // started outside any check
)

// whose classifies the calling goroutine, which is not a worker, by the
// goroutines that started it, and returns the check it belongs to with
// ownerCheck. A goroutine whose creators ended is taken to be a stray of
// the only check that runs, if one does, and to be abandoned when none
// does.
func whose() (owner, *driver) {
	self := selfID()
	gs := parseDump(allStacks())
	byGo := make(map[int64]*dumped, len(gs))
	for i := range gs {
		byGo[gs[i].id] = &gs[i]
	}
	if g := byGo[self]; g != nil && !g.worker {
		for range len(gs) {
			c := g.creator
			switch {
			case c == 0:
				return ownerOutside, nil
			case buried(c):
				return ownerAbandoned, nil
			}
			if w := byID(c); w != nil {
				if w.d.abandoned.Load() {
					return ownerAbandoned, nil
				}
				return ownerCheck, w.d
			}
			if g = byGo[c]; g == nil || g.worker {
				break
			}
		}
	}
	switch ds := drivers(); len(ds) {
	case 0:
		return ownerAbandoned, nil
	case 1:
		return ownerCheck, ds[0]
	}
	return ownerUnknown, nil
}
