// Package report turns the trace of a buggy execution into what a person
// reads: the operations in the order they happened, each with the goroutine
// that performed it and its source position, and the goroutines that were
// still waiting at the end.
package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// Op describes a step in a few words, e.g. "load var#0 = 3 (from step 1)".
func Op(s *runtime.Step) string {
	l, r := &s.Label, &s.Result
	obj := runtime.ObjName(l.OKind, l.Obj)
	switch l.Kind {
	case event.Load:
		return fmt.Sprintf("load %s = %s%s", obj, value(l, r.V), from(r.From))
	case event.Store:
		return fmt.Sprintf("store %s = %s", obj, value(l, l.A))
	case event.RMW:
		switch l.Op {
		case event.CAS:
			ok := "ok"
			if !r.OK {
				ok = "failed"
			}
			return fmt.Sprintf("cas %s %s→%s %s (was %s%s)", obj, value(l, l.A), value(l, l.B), ok, value(l, r.V), from(r.From))
		case event.Swap:
			return fmt.Sprintf("swap %s = %s (was %s%s)", obj, value(l, l.A), value(l, r.V), from(r.From))
		}
		return fmt.Sprintf("%s %s %s (was %s%s)", l.Op, obj, value(l, l.A), value(l, r.V), from(r.From))
	case event.Lock, event.Unlock:
		return fmt.Sprintf("%s %s", l.Kind, obj)
	case event.TryLock:
		if r.OK {
			return "trylock " + obj + " ok"
		}
		return "trylock " + obj + " failed"
	case event.SemAcquire, event.SemRelease, event.NotifyOne, event.NotifyAll:
		return fmt.Sprintf("%s %s", l.Kind, obj)
	case event.NotifyAdd:
		return "wait " + obj + " (enter)"
	case event.NotifyWait:
		return "wait " + obj + " (woken)"
	case event.Spawn:
		return fmt.Sprintf("go g%d", l.Arg)
	case event.Join:
		return fmt.Sprintf("join g%d", l.Arg)
	case event.End:
		return "return"
	case event.Block:
		return "assume failed: blocked forever"
	}
	return l.Kind.String()
}

// value prints v as the operation's type would.
func value(l *event.Label, v event.Value) string {
	if v.P != nil || l.OKind == event.VarObj {
		if v.P == nil {
			return "<zero>"
		}
		return fmt.Sprintf("%v", v.P)
	}
	if l.Width == 32 {
		return fmt.Sprint(int32(uint32(v.N)))
	}
	return fmt.Sprint(int64(v.N))
}

func from(step int32) string {
	if step < 0 {
		return " (initial)"
	}
	return fmt.Sprintf(" (from step %d)", step)
}

// Pos formats a position as file:line, the file relative to the working
// directory when that is shorter.
func Pos(p runtime.Pos) string {
	if p.File == "" {
		return "?"
	}
	file := p.File
	if rel, err := filepath.Rel(".", file); err == nil && !strings.HasPrefix(rel, "..") && len(rel) < len(file) {
		file = rel
	} else {
		file = filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
	}
	return fmt.Sprintf("%s:%d", file, p.Line)
}

// ShortFunc drops the import path from a function name.
func ShortFunc(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// Text renders t for a person.
func Text(t *runtime.Trace) string {
	var b strings.Builder
	b.WriteString("goroutines:\n")
	for _, g := range t.Goroutines {
		fmt.Fprintf(&b, "  g%-3d %s", g.ID, ShortFunc(g.Func))
		if g.ID != 0 {
			fmt.Fprintf(&b, " (started at %s by g%d)", Pos(g.Spawn), g.Parent)
		} else {
			b.WriteString(" (the body)")
		}
		b.WriteByte('\n')
	}
	if len(t.Objects) > 0 {
		b.WriteString("objects:\n")
		for i, o := range t.Objects {
			fmt.Fprintf(&b, "  %-10s first used at %s\n", runtime.ObjName(o.Kind, int32(i)), Pos(o.First))
		}
	}
	b.WriteString("steps:\n")
	for i := range t.Steps {
		s := &t.Steps[i]
		pos := Pos(s.Pos)
		if s.Label.Kind == event.End {
			pos = ""
		}
		fmt.Fprintf(&b, " %4d  g%-3d %-44s %s\n", i, s.G, Op(s), pos)
	}
	if s := t.Failed; s != nil {
		fmt.Fprintf(&b, ">%4d  g%-3d %-44s %s  <- %s\n", len(t.Steps), s.G, waitOp(&s.Label), Pos(s.Pos), t.Bug.Kind)
	}
	var waiting []string
	for _, g := range t.Goroutines {
		if g.Status == engine.Ended {
			continue
		}
		what := "blocked forever (assume)"
		if g.Status == engine.Ready {
			what = "waits in " + waitOp(&g.Waiting)
		}
		waiting = append(waiting, fmt.Sprintf("  g%-3d %s at %s\n", g.ID, what, Pos(g.WaitPos)))
	}
	if len(waiting) > 0 && t.Bug != nil && (t.Bug.Kind == engine.Deadlock || t.Bug.Kind == engine.GoroutineLeak) {
		b.WriteString("blocked at the end:\n")
		for _, w := range waiting {
			b.WriteString(w)
		}
	}
	if t.Bug != nil && t.BugPos.File != "" {
		fmt.Fprintf(&b, "the bug is at %s (g%d)\n", Pos(t.BugPos), t.Bug.G)
	}
	return b.String()
}

// waitOp describes an operation that was not performed: one a goroutine
// waits in, or one that is itself the bug.
func waitOp(l *event.Label) string {
	obj := runtime.ObjName(l.OKind, l.Obj)
	switch l.Kind {
	case event.Join:
		return fmt.Sprintf("join g%d", l.Arg)
	case event.Store:
		return fmt.Sprintf("store %s = %s", obj, value(l, l.A))
	case event.RMW:
		return fmt.Sprintf("%s %s", l.Op, obj)
	case event.NotifyWait:
		return "wait " + obj
	case event.Spawn, event.End, event.Block:
		return l.Kind.String()
	}
	return l.Kind.String() + " " + obj
}
