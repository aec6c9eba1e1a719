package condpor

import "weft.dev/weft/internal/graph"

// Graph returns the graph of the execution that just ran.
func (e *Engine) Graph() *graph.Graph { return e.top().g }
