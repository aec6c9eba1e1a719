package progtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/internal/engine/qpor"
	"weft.dev/weft/internal/engine/sdpor"
)

// BugClass is a class of executions that end in a bug: the bug's kind and
// the class of the ending (indep.Trace.Ending).
type BugClass struct {
	Kind  engine.BugKind
	Class uint64
}

// BugEndings counts an engine's executions by the class of bug ending
// they reach; Add is the engines' OnBug.
type BugEndings map[BugClass]int

// Add counts an execution that reaches class h of a bug of kind k.
func (b BugEndings) Add(k engine.BugKind, h uint64) { b[BugClass{k, h}]++ }

// Observe has eng count its bug endings in bugs, if it reports them, and
// qpor the trace of each of its maximal configurations in maximal.
func Observe(eng engine.Engine, bugs BugEndings, maximal map[uint64]int) {
	switch e := eng.(type) {
	case *dfs.Engine:
		e.OnBug = bugs.Add
	case *sdpor.Engine:
		e.OnBug = bugs.Add
	case *mpor.Engine:
		e.OnBug = bugs.Add
	case *qpor.Engine:
		e.OnBug = bugs.Add
		e.OnMaximal = func(h uint64) { maximal[h]++ }
	}
}

// Whole reports whether the class of a bug ending of kind k is the whole
// execution, where every goroutine left waits forever, rather than a
// failure's local configuration.
func Whole(k engine.BugKind) bool { return k == engine.Deadlock || k == engine.GoroutineLeak }

// Never is CompareBugs's once for the engines that reach a class of bug
// ending at least once.
func Never(engine.BugKind) bool { return false }

// CompareBugs returns how many of ref's classes got misses, how many of
// got's ref never reached, and how many got reaches more than once among
// the kinds that once says must be reached once.
func CompareBugs(ref, got BugEndings, once func(engine.BugKind) bool) (missed, extra, twice int) {
	for c := range ref {
		if got[c] == 0 {
			missed++
		}
	}
	for c, n := range got {
		if ref[c] == 0 {
			extra++
		}
		if n > 1 && once(c.Kind) {
			twice++
		}
	}
	return missed, extra, twice
}

// Kinds counts the classes by kind or, with executions, the executions
// that reach them.
func (b BugEndings) Kinds(executions bool) map[engine.BugKind]int {
	out := map[engine.BugKind]int{}
	for c, n := range b {
		if !executions {
			n = 1
		}
		out[c.Kind] += n
	}
	return out
}

// BugFigures sums, over the programs of a differential test and by kind
// of bug ending, the reference's classes and the executions of each
// engine that reach one.
type BugFigures struct {
	classes    map[engine.BugKind]int
	executions map[string]map[engine.BugKind]int // by engine
	names      []string                          // the engines, in order
}

// AddRef counts the bug endings b of the reference engine name: its
// classes, and its executions that reach one.
func (f *BugFigures) AddRef(name string, b BugEndings) {
	f.Add(name, b)
	for k, n := range b.Kinds(false) {
		f.classes[k] += n
	}
}

// Add counts the executions of engine name that reach a bug ending.
func (f *BugFigures) Add(name string, b BugEndings) {
	if f.executions == nil {
		f.classes, f.executions = map[engine.BugKind]int{}, map[string]map[engine.BugKind]int{}
	}
	if f.executions[name] == nil {
		f.executions[name] = map[engine.BugKind]int{}
		f.names = append(f.names, name)
	}
	for k, n := range b.Kinds(true) {
		f.executions[name][k] += n
	}
}

// String lists, by kind, the classes and the executions of each engine.
func (f *BugFigures) String() string {
	if len(f.classes) == 0 {
		return "no bug endings"
	}
	var b strings.Builder
	b.WriteString("bug endings (classes: executions by engine):")
	for i, k := range slices.Sorted(maps.Keys(f.classes)) {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %v %d:", k, f.classes[k])
		for _, name := range f.names {
			fmt.Fprintf(&b, " %s %d", name, f.executions[name][k])
		}
	}
	return b.String()
}
