package runtime

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"weft.dev/weft/internal/engine"
)

// Plain memory (the variables, fields and elements of code rewritten by weft
// test) is not modelled: its loads and stores are not operations, so they
// multiply no executions. Go's memory model makes that sound: a program
// whose plain accesses are all ordered by happens-before behaves as if they
// were atomic between its synchronizing operations, and a program with an
// unordered pair has a data race, a bug already. So each access is checked
// against the earlier conflicting accesses of the execution, as a race
// detector does (FastTrack's per-location histories over the vector clocks
// the engine keeps, see engine.Orderer), and an unordered pair is a DataRace
// of the goroutine whose access completes it. Every engine explores every
// class of happens-before, so every race is found.

// memory is the race checker's state in one execution: the accesses of each
// 8-byte word of plain memory that no later access of the execution makes
// redundant.
type memory struct {
	// words maps the address of a word to its history in cells. Its keys
	// keep the variables alive, so that no address is reused for another
	// variable while the execution runs.
	words  map[unsafe.Pointer]int32
	cells  [][]access
	stacks bool // capture whole stacks: the execution is traced
}

// access is one access of a word.
type access struct {
	g      int32 // the goroutine
	n      int32 // its own clock entry at the access
	mask   uint8 // the bytes of the word it accessed
	write  bool
	atomic bool // an operation of sync/atomic's functions
	// pcs holds the innermost frames of its stack when the execution is
	// traced for a report: capturing them costs more than the rest of the
	// check, and every bug is reported from a traced replay.
	pcs [8]uintptr
}

// reset forgets the accesses of the previous execution, keeping the arrays.
func (m *memory) reset() {
	if len(m.words) > 0 {
		clear(m.words) // see driver.begin
	}
	m.cells = m.cells[:0]
}

// Access checks an access of size bytes of plain memory at p by the calling
// goroutine (a store when write) against the accesses of other goroutines
// that it conflicts with: one that happens-before does not order with it
// is a DataRace bug, and the calling goroutine fails there. Outside a check,
// or in a goroutine that weft does not run, it does nothing: plain memory
// is only checked in executions.
func Access(p unsafe.Pointer, size uintptr, write bool) {
	w := lookup(self())
	if w == nil {
		if p != nil && checking.Load() != 0 {
			strayAccess()
		}
		return
	}
	checkAccess(w, p, size, write, false)
}

// checkAccess checks an access of size bytes at p by w's goroutine (a
// store when write). An atomic one, an operation of sync/atomic's
// functions about to be performed, races with the plain accesses of other
// goroutines that happens-before does not order with it, as in Go's memory
// model, not with other atomic operations; a compare-and-swap counts as a
// store, even when it fails.
func checkAccess(w *worker, p unsafe.Pointer, size uintptr, write, atomic bool) {
	if p == nil || size == 0 {
		return
	}
	g := w.g
	x := g.x
	if x.aborting || x.over || x.d.abandoned.Load() {
		return
	}
	clock := x.clockOf(g)
	if clock == nil {
		return
	}
	for size > 0 {
		off := uintptr(p) & 7
		n := min(8-off, size)
		mask := uint8((1<<n - 1) << off)
		if prev := x.mem.word(unsafe.Add(p, -int(off)), g.ID, clock, mask, write, atomic); prev != nil {
			x.race(g, prev, write, atomic)
		}
		p = unsafe.Add(p, n)
		size -= n
	}
}

// outsiders holds the ids of the goroutines that weft does not run and that
// belong to no check (a parallel test's plain code): their accesses are
// not checked, and telling them from strays costs a dump of all stacks,
// once per goroutine. It forgets them all when it holds too many.
var outsiders = struct {
	sync.Mutex
	ids map[int64]bool
}{ids: map[int64]bool{}}

// strayAccess handles an access of plain memory by a goroutine that weft
// does not run while checks run: a stray of a check (started by a package
// that weft test did not rewrite, which runs the program's function) makes
// the check report a misuse and ends, as for a weft operation (see
// foreign); the accesses of other goroutines are not checked.
func strayAccess() {
	id := goid()
	outsiders.Lock()
	known := outsiders.ids[id]
	outsiders.Unlock()
	if known {
		return
	}
	switch o, d := whose(); o {
	case ownerCheck:
		d.strayCall("plain memory was accessed")
	case ownerAbandoned:
		runtime.Goexit()
	default:
		outsiders.Lock()
		if len(outsiders.ids) >= 1<<12 {
			clear(outsiders.ids)
		}
		outsiders.ids[id] = true
		outsiders.Unlock()
	}
}

// clockOf returns g's clock at its current point (see engine.Orderer), nil
// when the engine keeps none.
func (x *execution) clockOf(g *goroutine) []int32 {
	if g.hbAt == g.Steps+1 {
		return g.hb
	}
	o, ok := x.eng.(engine.Orderer)
	if !ok {
		return nil
	}
	g.hb = append(g.hb[:0], o.Clock(&x.exec, g.ID)...)
	if len(g.hb) <= int(g.ID) {
		// The goroutine's own entry is the stamp of its accesses.
		g.hb = append(g.hb, make([]int32, int(g.ID)+1-len(g.hb))...)
	}
	g.hbAt = g.Steps + 1
	return g.hb
}

// word records the access (goroutine t, with clock, of the bytes mask of
// the word at key) and returns an earlier access of the word that it races
// with, if any.
func (m *memory) word(key unsafe.Pointer, t int32, clock []int32, mask uint8, write, atomic bool) *access {
	if m.words == nil {
		m.words = map[unsafe.Pointer]int32{}
	}
	i, ok := m.words[key]
	if !ok {
		i = int32(len(m.cells))
		if len(m.cells) < cap(m.cells) {
			m.cells = m.cells[:i+1]
			m.cells[i] = m.cells[i][:0]
		} else {
			m.cells = append(m.cells, nil)
		}
		m.words[key] = i
	}
	hist := m.cells[i]
	n := clock[t]
	for j := range hist {
		if a := &hist[j]; a.g == t && a.n == n && a.mask == mask && a.write == write && a.atomic == atomic {
			// The same access again, at the same point: what races
			// with it raced with it the first time.
			return nil
		}
	}
	ordered := func(a *access) bool { return a.g == t || int(a.g) < len(clock) && clock[a.g] > a.n }
	var racing *access
	keep := hist[:0]
	for j := range hist {
		a := &hist[j]
		conflict := a.mask&mask != 0 && (a.write || write) && !(a.atomic && atomic)
		if racing == nil && conflict && !ordered(a) {
			c := *a
			racing = &c
		}
		// An access that this one covers and follows is redundant: any
		// later access that races with it races with this one. An atomic
		// access makes no plain one redundant: a later atomic one races
		// with the plain one only.
		if a.mask&^mask == 0 && (write || !a.write) && (!atomic || a.atomic) && ordered(a) {
			continue
		}
		keep = append(keep, *a)
	}
	cur := access{g: t, n: n, mask: mask, write: write, atomic: atomic}
	if m.stacks {
		runtime.Callers(3, cur.pcs[:])
	}
	m.cells[i] = append(keep, cur)
	return racing
}

// race fails g, whose access (a store when write; atomic, an operation of
// sync/atomic's functions) races with prev.
func (x *execution) race(g *goroutine, prev *access, write, atomic bool) {
	kinds := func(w, atomic bool) string {
		k := "read"
		if w {
			k = "write"
		}
		if atomic {
			k = "atomic " + k
		}
		return k
	}
	at := func(p Pos) string {
		if p.File == "" {
			return ""
		}
		return fmt.Sprintf(" at %s:%d", filepath.Base(p.File), p.Line)
	}
	var pcs [8]uintptr
	runtime.Callers(3, pcs[:])
	cur, curStack := userFrames(pcs[:])
	prevAt, prevStack := userFrames(prev.pcs[:])
	b := &engine.Bug{Kind: engine.DataRace, G: g.ID,
		Message: fmt.Sprintf("g%d's %s%s and g%d's %s%s are not ordered by happens-before",
			prev.g, kinds(prev.write, prev.atomic), at(prevAt), g.ID, kinds(write, atomic), at(cur))}
	if x.mem.stacks {
		b.Stack = fmt.Sprintf("g%d's %s:\n%s\ng%d's %s:\n%s", g.ID, kinds(write, atomic), curStack, prev.g, kinds(prev.write, prev.atomic), prevStack)
	}
	if x.tracer != nil {
		g.pos = cur
	}
	g.fails(b, engine.Reach{G: prev.g, N: prev.n})
}

// userFrames returns the first frame of pcs that is the program's, and
// the program's frames in the format of a panic's stack.
func userFrames(pcs []uintptr) (first Pos, stack string) {
	var b strings.Builder
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.PC != 0 && isProgramFrame(f) {
			if first.File == "" {
				first = Pos{Func: f.Function, File: f.File, Line: f.Line}
			}
			fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			return first, b.String()
		}
	}
}
