package runtime

import (
	"reflect"
	"runtime"
	"strings"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// Pos is a source position of the program under test.
type Pos struct {
	Func string
	File string
	Line int
}

// Step is one performed operation of a traced execution.
type Step struct {
	G      int32
	Label  event.Label
	Result event.Result
	Pos    Pos
	Note   string // what the operation does, in words, when its model said (see Note)
}

// GoroutineInfo describes a goroutine of a traced execution.
type GoroutineInfo struct {
	ID     int32
	Parent int32
	Func   string // the function it runs
	Spawn  Pos    // where it was started
	Status engine.Status
	// Waiting is the operation a goroutine that did not end waits in, and
	// WaitPos its position.
	Waiting event.Label
	WaitPos Pos
	// WaitNote describes Waiting, when its model said (see Note).
	WaitNote string
	// System is set for a system goroutine (see System).
	System bool
}

// Trace is the record of one execution, for reports.
type Trace struct {
	Steps      []Step
	Goroutines []GoroutineInfo // in order of creation
	Objects    []ObjectInfo    // by index
	Bug        *engine.Bug
	BugPos     Pos   // where the goroutine at fault was
	Failed     *Step // the operation that is the bug (a race, a misuse), if any
}

// ObjectInfo describes an object of a traced execution.
type ObjectInfo struct {
	Kind  event.ObjKind
	First Pos // the operation that first touched it
}

// tracer records an execution. It is only used when a bug is replayed for its
// report, so it may be slow.
type tracer struct {
	t    Trace
	gidx map[int32]int
}

func newTracer() *tracer { return &tracer{gidx: map[int32]int{}} }

func (tr *tracer) step(g *goroutine) {
	if g.Pending.Kind == event.Fail {
		// The failure is the bug: the report shows it as the last step.
		return
	}
	tr.t.Steps = append(tr.t.Steps, Step{G: g.ID, Label: g.Pending, Result: g.Result, Pos: g.pos, Note: g.note})
	g.note = ""
}

func (tr *tracer) spawn(g *goroutine, at Pos) {
	tr.gidx[g.ID] = len(tr.t.Goroutines)
	tr.t.Goroutines = append(tr.t.Goroutines, GoroutineInfo{
		ID:     g.ID,
		Parent: g.Parent,
		Func:   funcName(g.fn),
		Spawn:  at,
	})
}

func (tr *tracer) object(idx int32, k event.ObjKind) {
	for int(idx) >= len(tr.t.Objects) {
		tr.t.Objects = append(tr.t.Objects, ObjectInfo{})
	}
	tr.t.Objects[idx] = ObjectInfo{Kind: k, First: callerPos()}
}

func (tr *tracer) fail(b *engine.Bug) {
	if tr.t.Bug != nil {
		return
	}
	tr.t.Bug = b
}

// failed records g's pending operation as the one the engine found faulty.
func (tr *tracer) failed(g *goroutine) {
	tr.t.Failed = &Step{G: g.ID, Label: g.Pending, Pos: g.pos}
}

// finish completes the trace with the state of every goroutine at the end.
func (tr *tracer) finish(x *execution) *Trace {
	if b := tr.t.Bug; b != nil && b.G >= 0 && int(b.G) < len(x.gs) && x.gs[b.G] != nil {
		tr.t.BugPos = x.gs[b.G].pos
	}
	for _, g := range x.gs {
		if g == nil {
			continue
		}
		i, ok := tr.gidx[g.ID]
		if !ok {
			continue
		}
		info := &tr.t.Goroutines[i]
		info.Status = g.Status
		info.System = g.system
		if g.Status != engine.Ended {
			info.Waiting = g.Pending
			info.WaitPos = g.pos
			info.WaitNote = g.note
		}
	}
	t := tr.t
	return &t
}

// modulePrefix is the import path of weft followed by "/"; frames of weft's
// own packages are skipped when looking for the program's call site.
var modulePrefix = func() string {
	name := runtime.FuncForPC(reflect.ValueOf(newTracer).Pointer()).Name()
	return strings.TrimSuffix(name, "internal/runtime.newTracer")
}()

// isWeftFrame reports whether fn is a function of weft itself, as opposed to
// the program under test (which may live in the same module, as the
// examples and the external tests do).
func isWeftFrame(fn string) bool {
	if pkg := packageOf(fn); strings.HasSuffix(pkg, "_test") || strings.Contains(pkg, "/examples/") {
		return false
	}
	if strings.HasPrefix(fn, modulePrefix[:len(modulePrefix)-1]+".") {
		return true
	}
	rest, ok := strings.CutPrefix(fn, modulePrefix)
	if !ok {
		return false
	}
	for _, p := range []string{"sync.", "atomic.", "sym.", "time.", "context.", "rewritten.", "internal/"} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// moduleDir is the directory of weft's sources followed by "/" (or its
// import path, under -trimpath), as the frames of its functions name it.
var moduleDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return strings.TrimSuffix(file, "internal/runtime/trace.go")
}()

// isWeftFile reports whether file is a source file of weft itself. A
// function of weft that the compiler inlines into the program may bear
// the program's name: the iterator of rewritten.Range, inlined into the
// loop that ranges over a channel, is "pkg.worker.Range[...].func2".
func isWeftFile(file string) bool {
	rest, ok := strings.CutPrefix(file, moduleDir)
	if !ok || moduleDir == "" || strings.HasSuffix(rest, "_test.go") {
		return false
	}
	dir, _, sub := strings.Cut(rest, "/")
	if !sub {
		return true // the weft package
	}
	switch dir {
	case "sync", "atomic", "sym", "time", "context", "rewritten", "internal":
		return true
	}
	return false
}

// isWeftCode reports whether frame f runs weft's code: a function of weft,
// or one inlined from its files.
func isWeftCode(f runtime.Frame) bool {
	return isWeftFrame(f.Function) || isWeftFile(f.File)
}

// packageOf returns the import path of the package of function fn.
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// isInternal reports whether fn belongs to weft's internal packages, whose
// panics are failures of weft itself.
func isInternal(fn string) bool {
	return isWeftFrame(fn) && strings.HasPrefix(fn, modulePrefix+"internal/") && fn != raiseName
}

// isProgramFrame reports whether frame f runs the program's code: neither
// weft's, nor Go's runtime, nor the iterators of package iter that run
// weft's range functions.
func isProgramFrame(f runtime.Frame) bool {
	return !isWeftCode(f) && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "iter.")
}

// callerPos returns the position of the innermost caller outside weft. It
// resolves the frames at once: a program counter alone loses the inlining
// context, and weft's small methods are inlined into the program.
func callerPos() Pos {
	var pcs [32]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if isProgramFrame(f) {
			return Pos{Func: f.Function, File: f.File, Line: f.Line}
		}
		if !more {
			return Pos{}
		}
	}
}

func funcName(fn func()) string {
	if fn == nil {
		return ""
	}
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return ""
	}
	return f.Name()
}
