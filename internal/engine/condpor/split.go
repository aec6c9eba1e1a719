package condpor

import (
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/graph"
)

// Split implements engine.Splitter. The exploration pops the alternatives
// of the top frame, last pushed first, and a frame's alternatives are
// explored after those of the frames above it: the last executions are
// the subtrees of the first alternatives of the lowest frame. Split hands
// over the first half of them, in a frame with a copy of the graph (the
// whole frame when it is not the top one and has one alternative).
//
// An alternative depends only on the part of its frame's graph added
// before its event, which the alternatives explored before it cut away
// and rebuild the same: the subtrees are the same whichever engine
// explores them. The frame's model is the exception: a branch's other
// outcome, explored from the frame, changes it for the alternatives
// explored after, where it gives the concrete values of the symbolic
// inputs met later. The new engine starts from the model as it is at the
// split, so that with symbolic values its executions may take the
// outcomes of the branches in another order than one engine would (the
// same ones, so the same counts).
func (e *Engine) Split(c engine.Config) engine.Engine {
	for len(e.frames) > 1 && len(e.frames[0].items) == 0 {
		e.spares = append(e.spares, e.frames[0])
		e.frames = e.frames[1:]
	}
	if len(e.frames) == 0 {
		return nil
	}
	f := e.frames[0]
	var part *frame
	switch {
	case len(f.items) >= 2:
		half := len(f.items) / 2
		part = &frame{g: f.g.Copy(whole(f.g)), items: append([]item(nil), f.items[:half]...), repair: f.repair}
		f.items = append(f.items[:0], f.items[half:]...)
	case len(e.frames) > 1:
		part = f
		e.frames = e.frames[1:]
	default:
		return nil
	}
	// The frames above may share the model's array.
	part.model = f.model.Clone()
	return &Engine{frames: []*frame{part}, started: true, sym: c.Concolic, Verify: e.Verify}
}

// Size implements engine.Sizer: a part split from the engine copies the
// graph of one of its frames, at most the top one's.
func (e *Engine) Size() int {
	if len(e.frames) == 0 {
		return 0
	}
	return e.frames[len(e.frames)-1].g.Size()
}

// whole returns the view of every event of g.
func whole(g *graph.Graph) []int32 {
	v := make([]int32, len(g.Threads))
	for t := range g.Threads {
		v[t] = int32(len(g.Threads[t].Events)) - 1
	}
	return v
}
