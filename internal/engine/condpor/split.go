package condpor

import "weft.dev/weft/internal/engine"

// Split implements engine.Splitter. A frame below the top one waits, its
// graph and model untouched, until every frame above it is done: its
// remaining alternatives are the last executions of the exploration, and
// they depend on nothing but the frame. Split hands over the lowest frame
// that has alternatives left, when it is not the top one, which the
// running exploration may still extend. Frames without alternatives below
// it are dropped: the exploration would only pop them.
func (e *Engine) Split(c engine.Config) engine.Engine {
	for len(e.frames) > 1 && len(e.frames[0].items) == 0 {
		e.spares = append(e.spares, e.frames[0].g)
		e.frames = e.frames[1:]
	}
	if len(e.frames) < 2 {
		return nil
	}
	f := e.frames[0]
	e.frames = e.frames[1:]
	// The frames above may share the model's array.
	f.model = f.model.Clone()
	return &Engine{frames: []*frame{f}, started: true, sym: c.Concolic, Verify: e.Verify}
}
