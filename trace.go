package weft

import (
	"fmt"
	"strings"

	"weft.dev/weft/internal/report"
)

// Error returns the kind, the message, the trace and the replay token.
func (b *Bug) Error() string {
	s := b.describe()
	if b.Replay != "" {
		s += fmt.Sprintf("\nreplay this execution with WEFT_REPLAY=%s (or weft.WithReplay)\n", b.Replay)
	}
	return s
}

// describe returns the kind, the message and the trace.
func (b *Bug) describe() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s: %s\n", b.Kind, strings.TrimRight(b.Message, "\n"))
	if t := b.Trace.String(); t != "" {
		s.WriteString("\n")
		s.WriteString(t)
	}
	return s.String()
}

// Trace is the record of a buggy execution.
type Trace struct {
	Goroutines []TraceGoroutine // in the order they were started
	Steps      []TraceStep      // the visible operations, in execution order
	// Minimized tells that the execution is not the one the exploration
	// found but one with fewer goroutine switches and the same bug.
	Minimized bool
	model     *report.Trace
}

// TraceGoroutine describes a goroutine of a traced execution.
type TraceGoroutine struct {
	ID      int
	Func    string // the function it runs
	Spawn   string // file:line of the weft.Go that started it; "" for the body
	Waiting string // the operation it waits in at the end; "" if it returned
}

// TraceStep is one visible operation.
type TraceStep struct {
	Goroutine int
	Op        string // e.g. "load var#0 = 3 (from #2)": #N is Steps[N-1]
	Pos       string // file:line
}

// String renders the trace for a person: a table with one column per
// goroutine and one row per operation.
func (t Trace) String() string {
	if t.model == nil {
		return ""
	}
	return report.Text(t.model)
}

func newTrace(m *report.Trace) Trace {
	t := Trace{model: m, Minimized: m.Minimized != nil}
	for _, g := range m.Goroutines {
		t.Goroutines = append(t.Goroutines, TraceGoroutine{ID: g.ID, Func: g.Func, Spawn: g.Spawn, Waiting: g.Waiting})
	}
	for _, s := range m.Steps {
		t.Steps = append(t.Steps, TraceStep{Goroutine: s.G, Op: s.Op, Pos: s.Pos})
	}
	return t
}
