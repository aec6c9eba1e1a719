package condpor

import (
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// effect computes what the update whose read part is at p (of event ev)
// does given the value it read: the value it writes, whether it writes at
// all, and the result its goroutine sees. Channel operations are not
// updates of one location: see chanops.go.
func effect(g *graph.Graph, p graph.Pos) (nv event.Value, writes bool, res event.Result) {
	ev := g.Ev(p)
	return ev.Lab.UpdateAlt(g.ReadValue(p), int(ev.Outcome))
}

// blocks reports whether goroutine g's operation l cannot proceed on a
// location holding v: a held lock, an empty semaphore, a condition not
// signaled.
func blocks(l *event.Label, v event.Value) bool { return l.Blocks(v) }

// writesAfter reports whether the read at p is the read part of an update
// that writes: its write part follows it (or will, once replayed).
func writesAfter(g *graph.Graph, p graph.Pos) bool {
	ev := g.Ev(p)
	if ev.Kind != graph.Read || !ev.RMW {
		return false
	}
	if ev.Lab.Kind.Chan() {
		_, ok := opPart(g, p, graph.Write, ev.Loc)
		return ok
	}
	_, writes, _ := effect(g, p)
	return writes
}

// opPart returns the event of kind k at loc in the operation of the event
// at p: the read part of a write part, or the reverse.
func opPart(g *graph.Graph, p graph.Pos, k graph.Kind, loc int32) (graph.Pos, bool) {
	lead := g.Leader(p)
	for i := lead.I; i < g.OpEnd(p); i++ {
		q := graph.Pos{T: p.T, I: i}
		if ev := g.Ev(q); ev.Kind == k && ev.Loc == loc {
			return q, true
		}
	}
	return graph.Pos{}, false
}

// opLast returns the last event of the operation of the event at p.
func opLast(g *graph.Graph, p graph.Pos) graph.Pos {
	return graph.Pos{T: p.T, I: g.OpEnd(p) - 1}
}
