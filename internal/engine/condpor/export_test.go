package condpor

import "weft.dev/weft/internal/graph"

// Graph returns the graph of the execution that just ran.
func (e *Engine) Graph() *graph.Graph { return e.top().g }

// SetDebug makes the engine print what it explores (scratch debugging).
func SetDebug(f func(string, ...any)) { debugf = f }
