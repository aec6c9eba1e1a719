package condpor

import (
	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/graph"
)

// isChan reports whether operations of kind k act on the channels.
func isChan(k event.Kind) bool {
	switch k {
	case event.ChanMake, event.ChanSend, event.ChanRecv, event.ChanClose, event.ChanLen, event.ChanWait, event.Select:
		return true
	}
	return false
}

// token names the channel operation whose read part is at p.
func token(p graph.Pos) chans.Token { return chans.Token(int64(p.T)<<32 | int64(uint32(p.I))) }

// syncSource returns the event a channel operation synchronizes with: the
// write part of the operation named by tok, or Init for none.
func syncSource(tok chans.Token) graph.Pos {
	if tok == chans.NoToken {
		return graph.Init
	}
	return graph.Pos{T: int32(tok >> 32), I: int32(uint32(tok)) + 1}
}

// effect computes what the operation of the read at p (of event ev) does
// given the value it read: the value it writes, whether it writes at all,
// the result its goroutine sees, and the event its write synchronizes with
// (Init: only through what it read).
func effect(p graph.Pos, ev *graph.Event) (nv event.Value, writes bool, res event.Result, sync graph.Pos) {
	if isChan(ev.Lab.Kind) {
		op := chans.OpOf(&ev.Lab, p.T, token(p))
		n, r := chans.StateOf(ev.Val).Apply(&op, int(ev.Outcome))
		return event.Value{P: n}, chans.Writes(&op, r), r.Event(&op), syncSource(r.Sync)
	}
	nv, writes, res = ev.Lab.UpdateAlt(ev.Val, int(ev.Outcome))
	return nv, writes, res, graph.Init
}

// outcomesOf returns how many outcomes the operation of the read at p has
// on the value it read.
func outcomesOf(p graph.Pos, ev *graph.Event) int {
	if ev.Lab.Kind == event.Select || ev.Lab.Kind == event.ChanWait {
		op := chans.OpOf(&ev.Lab, p.T, token(p))
		return chans.StateOf(ev.Val).Outcomes(&op)
	}
	return ev.Lab.Alternatives(ev.Val)
}

// blocks reports whether goroutine g's operation l cannot proceed on a
// location holding v: a held lock, an empty semaphore, a condition not
// signaled, a channel operation waiting for its partner.
func blocks(l *event.Label, g int32, v event.Value) bool {
	if isChan(l.Kind) {
		op := chans.OpOf(l, g, chans.NoToken)
		return !chans.StateOf(v).Enabled(&op)
	}
	return l.Blocks(v)
}

// writesAfter reports whether the read at p is the read part of an update
// that writes: its write part follows it (or will, once replayed).
func writesAfter(g *graph.Graph, p graph.Pos) bool {
	ev := g.Ev(p)
	if ev.Kind != graph.Read || !ev.RMW {
		return false
	}
	_, writes, _, _ := effect(p, ev)
	return writes
}
