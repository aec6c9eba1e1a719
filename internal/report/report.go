// Package report turns the trace of a buggy execution into what a person
// reads and what tools consume: a model of the execution in words (Trace,
// built by New), rendered as a text table with one column per goroutine
// (Text), as a Graphviz execution graph (DOT) and as a self-contained HTML
// page with the graph laid out as SVG (HTML). The model is also the "trace"
// of weft's JSON output (Record), so that the weft command can draw the
// graph of a bug found in another process.
//
// Every string of the model may come from the program under test (assertion
// messages, values, function and file names): each renderer escapes them for
// its format.
package report

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Trace is one buggy execution in words.
type Trace struct {
	Bug        Bug         `json:"bug"`
	Goroutines []Goroutine `json:"goroutines"` // in the order they were started
	Objects    []Object    `json:"objects,omitempty"`
	// Steps are the visible operations in execution order. When the bug is
	// an operation (a failed assertion, a racy access, a panic...), the last
	// step is that operation, marked Failed.
	Steps     []Step     `json:"steps"`
	Minimized *Minimized `json:"minimized,omitempty"`
}

// Bug is what went wrong.
type Bug struct {
	Kind    string `json:"kind"`    // e.g. "assertion failed"
	Message string `json:"message"` // without the stack of a panic
	G       int    `json:"goroutine"`
	Pos     string `json:"pos,omitempty"` // where goroutine G was
}

// Goroutine describes a goroutine of the execution.
type Goroutine struct {
	ID     int    `json:"id"`
	Parent int    `json:"parent"` // -1 for the body
	Func   string `json:"func"`   // the function it runs, without its import path
	Spawn  string `json:"spawn,omitempty"`
	// State is "ended", "failed" (it was running when the bug happened),
	// "waiting" (it has an operation to perform: at the end of a deadlock or
	// a leak it waits forever) or "blocked" (in Assume).
	State   string `json:"state"`
	Waiting string `json:"waiting,omitempty"` // the operation it waits to perform
	WaitPos string `json:"wait_pos,omitempty"`
	// System tells a goroutine that a library's model runs on the
	// program's behalf (weft/time's clock): it may wait at the end.
	System bool `json:"system,omitempty"`
}

// Object is a modelled object (a Var, an atomic, a mutex...).
type Object struct {
	Name  string `json:"name"`  // as operations name it, e.g. "atomic#0"
	First string `json:"first"` // file:line of its first use
}

// Step is one visible operation.
type Step struct {
	G    int    `json:"goroutine"`
	Kind string `json:"kind"` // the kind of operation, e.g. "load", "lock", "go"
	// Op is the operation in words with its result, e.g.
	// "load atomic#0 = 3 (from #2)": #N is the N-th step, counting from 1.
	Op  string `json:"op"`
	Obj string `json:"object,omitempty"`
	// From is the index in Steps of the write the operation read, or -1 for
	// the object's initial value; nil for operations that read nothing.
	From *int `json:"from,omitempty"`
	// Writes tells whether the operation wrote its object (a failed
	// CompareAndSwap only reads).
	Writes bool `json:"writes,omitempty"`
	// Target is the goroutine that a go starts or that a join waits for.
	Target *int   `json:"target,omitempty"`
	Pos    string `json:"pos,omitempty"`
	Failed bool   `json:"failed,omitempty"` // the operation is the bug
}

// Minimized says that the execution was replaced by one with fewer
// goroutine switches that has the same bug.
type Minimized struct {
	Switches int `json:"switches"` // in this execution
	Original int `json:"original"` // in the execution the exploration found
}

// New describes t.
func New(t *runtime.Trace) *Trace {
	r := &Trace{}
	wd, _ := os.Getwd()
	d := &describer{refs: map[uintptr]string{}, chans: map[chans.ID]string{}, wd: wd}
	if b := t.Bug; b != nil {
		r.Bug = Bug{Kind: b.Kind.String(), Message: b.Message, G: int(b.G)}
		if t.BugPos.File != "" {
			r.Bug.Pos = d.pos(t.BugPos)
		}
	}
	for _, g := range t.Goroutines {
		rg := Goroutine{ID: int(g.ID), Parent: int(g.Parent), Func: shortFunc(g.Func), State: "ended", System: g.System}
		if g.ID != 0 {
			rg.Spawn = d.pos(g.Spawn)
		}
		switch {
		case t.Bug != nil && g.ID == t.Bug.G && t.Bug.Kind != engine.Deadlock && t.Bug.Kind != engine.GoroutineLeak:
			rg.State = "failed"
		case g.Status == engine.Ready:
			rg.State, rg.WaitPos = "waiting", d.pos(g.WaitPos)
		case g.Status == engine.Blocked:
			rg.State, rg.Waiting, rg.WaitPos = "blocked", "failed assume", d.pos(g.WaitPos)
		}
		r.Goroutines = append(r.Goroutines, rg)
	}
	for i, o := range t.Objects {
		// The channels of an execution are one object; each channel is
		// listed where it is made.
		if o.Kind != event.Chan {
			r.Objects = append(r.Objects, Object{Name: runtime.ObjName(o.Kind, int32(i)), First: d.pos(o.First)})
		}
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		if s.Label.Kind == event.ChanMake {
			name := fmt.Sprintf("chan#%d", len(d.chans)+1)
			d.chans[chans.ID(int64(s.Result.V.N))] = name // a make returns the channel's ID
			r.Objects = append(r.Objects, Object{Name: name, First: d.pos(s.Pos)})
		}
		r.Steps = append(r.Steps, d.step(s))
	}
	for i, g := range t.Goroutines {
		if r.Goroutines[i].State == "waiting" {
			r.Goroutines[i].Waiting = d.pendingOp(&g.Waiting)
			if g.WaitNote != "" {
				r.Goroutines[i].Waiting = g.WaitNote
			}
		}
	}
	if s := d.failed(t); s != nil {
		r.Steps = append(r.Steps, *s)
	}
	return r
}

// failed returns the step that is the bug of t, if the bug is an operation.
func (d *describer) failed(t *runtime.Trace) *Step {
	if s := t.Failed; s != nil {
		return &Step{G: int(s.G), Kind: s.Label.Kind.String(), Op: d.pendingOp(&s.Label), Obj: d.objName(&s.Label, nil), Pos: d.pos(s.Pos), Failed: true}
	}
	b := t.Bug
	if b == nil || b.G < 0 || t.BugPos.File == "" {
		return nil
	}
	var kind, op string
	switch b.Kind {
	case engine.AssertionFailed:
		kind, op = "assert", "assert failed"
	case engine.Panic:
		kind, op = "panic", "panic"
	case engine.StepLimit:
		kind, op = "step-limit", "step limit reached"
	case engine.Misuse:
		kind, op = "misuse", "misuse"
	case engine.DataRace:
		// A race on plain memory: the access is no operation, and the
		// step is where it was.
		kind, op = "race", "data race"
	default:
		// Deadlocks and leaks are no operation's: the goroutines' waits say
		// what happened.
		return nil
	}
	return &Step{G: int(b.G), Kind: kind, Op: op, Pos: d.pos(t.BugPos), Failed: true}
}

// describer puts operations and positions into words. It names the
// pointers, channels and functions that values hold by their order of
// appearance (ptr#1...), since their addresses change from one run to the
// next.
type describer struct {
	refs  map[uintptr]string
	chans map[chans.ID]string // a channel is named by the order it was made in
	wd    string              // positions are relative to it
}

// step describes a performed operation.
func (d *describer) step(s *runtime.Step) Step {
	l, r := &s.Label, &s.Result
	st := Step{G: int(s.G), Kind: l.Kind.String(), Op: d.op(l, r), Obj: d.objName(l, r), Pos: d.pos(s.Pos)}
	if s.Note != "" {
		// The operation is part of a model (a timer's) that says what it
		// means; the object and the reads-from stay for the graph.
		st.Op = s.Note
	}
	switch l.Kind {
	case event.Load, event.NotifyWait:
		st.From = ptr(int(r.From))
	case event.Store, event.Unlock:
		st.Writes = true
	case event.RMW, event.TryLock:
		st.From, st.Writes = ptr(int(r.From)), r.OK
	case event.Lock, event.SemAcquire, event.SemRelease, event.NotifyAdd, event.NotifyOne, event.NotifyAll:
		st.From, st.Writes = ptr(int(r.From)), true
	case event.Spawn, event.Join:
		st.Target = ptr(int(l.Arg))
	case event.End:
		// The position of a return is the goroutine's last line, which says
		// nothing.
		st.Pos = ""
	}
	return st
}

func ptr(n int) *int { return &n }

// objName names the object of an operation; r is its result, nil for an
// operation not performed.
func (d *describer) objName(l *event.Label, r *event.Result) string {
	switch {
	case l.OKind == event.NoObj || l.Kind == event.Select:
		return ""
	case l.Kind == event.ChanMake && r != nil:
		// A make returns the channel's ID.
		return d.chanName(chans.ID(int64(r.V.N)))
	case l.OKind == event.Chan:
		return d.chanName(chans.ID(int64(l.B.N)))
	}
	return runtime.ObjName(l.OKind, l.Obj)
}

// chanName names channel id: by the step that made it.
func (d *describer) chanName(id chans.ID) string {
	if id == chans.Nil {
		return "nil chan"
	}
	if name, ok := d.chans[id]; ok {
		return name
	}
	return fmt.Sprintf("chan@%d", id)
}

// op describes a performed operation and its result in a few words, e.g.
// "load atomic#0 = 3 (from #2)".
func (d *describer) op(l *event.Label, r *event.Result) string {
	obj := d.objName(l, r)
	switch l.Kind {
	case event.Load:
		return fmt.Sprintf("load %s = %s%s", obj, d.value(l, r.V), from(r.From))
	case event.Store:
		return fmt.Sprintf("store %s = %s", obj, d.value(l, l.A))
	case event.RMW:
		switch l.Op {
		case event.CAS:
			ok := "ok"
			if !r.OK {
				ok = "failed"
			}
			return fmt.Sprintf("CAS %s %s→%s %s (was %s%s)", obj, d.value(l, l.A), d.value(l, l.B), ok, d.value(l, r.V), fromSep(r.From))
		case event.Swap:
			return fmt.Sprintf("swap %s = %s (was %s%s)", obj, d.value(l, l.A), d.value(l, r.V), fromSep(r.From))
		}
		return fmt.Sprintf("%s %s %s (was %s%s)", l.Op, obj, d.value(l, l.A), d.value(l, r.V), fromSep(r.From))
	case event.TryLock:
		if r.OK {
			return "trylock " + obj + " ok"
		}
		return "trylock " + obj + " failed"
	case event.NotifyAdd:
		return "cond wait " + obj + " (enter)"
	case event.NotifyWait:
		return "cond wait " + obj + " (woken)"
	case event.Spawn:
		return fmt.Sprintf("go g%d", l.Arg)
	case event.Join:
		return fmt.Sprintf("join g%d", l.Arg)
	case event.End:
		return "return"
	case event.Block:
		if l.Arg == event.Await {
			return "weft.Yield: waits for a write to what its loop read"
		}
		return "assume failed: blocked forever"
	case event.SymNew:
		// Its value is the current model's, which later branches may change.
		return "new symbolic input"
	case event.SymEval:
		if l.Arg == 1 {
			return fmt.Sprintf("pin symbolic value (%t)", r.OK)
		}
		return fmt.Sprintf("symbolic branch: %t", r.OK)
	case event.SymChoose:
		return fmt.Sprintf("symbolic choice: %d of %d", r.V.N, l.B.N)
	case event.ChanMake:
		return fmt.Sprintf("make %s (capacity %d)", obj, l.B.N)
	case event.ChanSend:
		return fmt.Sprintf("send %s on %s%s", d.value(l, l.A), obj, waits(r))
	case event.ChanRecv:
		switch {
		case r.Wait:
			return "recv " + obj + waits(r)
		case r.OK:
			return fmt.Sprintf("recv %s = %s", obj, d.value(l, r.V))
		}
		return "recv " + obj + ": closed"
	case event.ChanLen:
		return fmt.Sprintf("len %s = %d", obj, r.V.N)
	case event.ChanWait:
		if cases, ok := l.A.P.([]chans.Case); ok {
			return "woken in select: " + d.selected(l, cases, r)
		}
		if event.Kind(l.Arg) == event.ChanSend {
			// A receiver took the value: the send has nothing to show
			// but that.
			return "woken on " + obj + ": sent"
		}
		if r.OK {
			return fmt.Sprintf("woken on %s = %s", obj, d.value(l, r.V))
		}
		return "woken on " + obj
	case event.Select:
		if r.Wait {
			return "select" + waits(r)
		}
		cases, _ := l.A.P.([]chans.Case)
		return "select: " + d.selected(l, cases, r)
	}
	return d.pendingOp(l)
}

// selected describes the case of a select that r took.
func (d *describer) selected(l *event.Label, cases []chans.Case, r *event.Result) string {
	if r.Case < 0 || int(r.Case) >= len(cases) {
		return "default"
	}
	c := cases[r.Case]
	switch {
	case c.Send:
		return fmt.Sprintf("send %s on %s", d.value(l, c.V), d.chanName(c.Chan))
	case r.OK:
		return fmt.Sprintf("recv %s = %s", d.chanName(c.Chan), d.value(l, r.V))
	}
	return "recv " + d.chanName(c.Chan) + ": closed"
}

// waits tells that a channel operation could not complete at once.
func waits(r *event.Result) string {
	if r.Wait {
		return " (waits)"
	}
	return ""
}

// pendingOp describes an operation that was not performed: one a goroutine
// waits in, or one that is itself the bug.
func (d *describer) pendingOp(l *event.Label) string {
	obj := d.objName(l, nil)
	switch l.Kind {
	case event.Join:
		return fmt.Sprintf("join g%d", l.Arg)
	case event.Store:
		return fmt.Sprintf("store %s = %s", obj, d.value(l, l.A))
	case event.RMW:
		if l.Op == event.CAS {
			return "CAS " + obj
		}
		return fmt.Sprintf("%s %s", l.Op, obj)
	case event.NotifyAdd, event.NotifyWait:
		return "cond wait " + obj
	case event.ChanSend:
		return "send on " + obj
	case event.ChanWait:
		if _, ok := l.A.P.([]chans.Case); ok {
			return "select"
		}
		if event.Kind(l.Arg) == event.ChanSend {
			return "send on " + obj
		}
		return "receive from " + obj
	case event.Select:
		return "select"
	case event.End:
		return "return"
	case event.SymNew, event.SymEval, event.SymChoose, event.Spawn, event.Block:
		return l.Kind.String()
	}
	if obj == "" {
		return l.Kind.String()
	}
	return l.Kind.String() + " " + obj
}

// value prints v as the operation's type would.
func (d *describer) value(l *event.Label, v event.Value) string {
	if v.P != nil || l.OKind == event.VarObj {
		if v.P == nil {
			return "<zero>"
		}
		return d.ref(v.P)
	}
	if l.Width == 32 {
		return fmt.Sprint(int32(uint32(v.N)))
	}
	return fmt.Sprint(int64(v.N))
}

// ref prints a value that is not an integer.
func (d *describer) ref(p any) string {
	rv := reflect.ValueOf(p)
	var kind string
	switch rv.Kind() {
	case reflect.Pointer, reflect.UnsafePointer:
		kind = "ptr"
	case reflect.Chan:
		kind = "chan"
	case reflect.Func:
		kind = "func"
	default:
		return fmt.Sprintf("%v", p)
	}
	if rv.IsNil() {
		return "nil"
	}
	name, ok := d.refs[rv.Pointer()]
	if !ok {
		name = fmt.Sprintf("%s#%d", kind, len(d.refs)+1)
		d.refs[rv.Pointer()] = name
	}
	return name
}

// from names the write a read took its value from.
func from(step int32) string {
	if step < 0 {
		return " (initial)"
	}
	return fmt.Sprintf(" (from #%d)", step+1)
}

// fromSep is from inside parentheses that already hold the value.
func fromSep(step int32) string {
	if step < 0 {
		return ", initial"
	}
	return fmt.Sprintf(", from #%d", step+1)
}

// pos formats a position as file:line, the file relative to the working
// directory when that is shorter (go test runs in the package's
// directory), else with its directory's name.
func (d *describer) pos(p runtime.Pos) string {
	if p.File == "" {
		return ""
	}
	file := p.File
	if rel, err := filepath.Rel(d.wd, file); err == nil && !strings.HasPrefix(rel, "..") && len(rel) < len(file) {
		file = rel
	} else {
		file = filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
	}
	return fmt.Sprintf("%s:%d", file, p.Line)
}

// shortFunc drops the import path from a function name, and the suffix Go
// gives method values.
func shortFunc(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(name, "-fm")
}
