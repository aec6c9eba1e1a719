package report

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Render draws the execution graph of t in the format the name of the file
// it goes to asks for: a self-contained HTML page for .html and .htm, else
// Graphviz DOT.
func Render(file string, t *Trace) []byte {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".html", ".htm":
		return HTML(t)
	}
	return DOT(t)
}

// maxGraphSteps bounds the steps a graph draws: a livelock's trace has
// thousands, of which the last ones tell what happened.
const maxGraphSteps = 1000

// The kinds of edges of an execution graph.
const (
	edgePO    = "po"    // program order: the next operation of the goroutine
	edgeRF    = "rf"    // reads-from: a write to a read of its value
	edgeCO    = "co"    // coherence: a write to the next write of the object
	edgeSpawn = "spawn" // a go to the first operation of the goroutine
	edgeJoin  = "join"  // the last operation of a goroutine to a join of it
)

// edge goes from node From to node To. Nodes are numbered as the steps of
// the trace, followed by one node per goroutine that had not finished.
type edge struct {
	From, To int
	Kind     string
}

// graph is the execution graph of a trace, rebuilt from the steps: program
// order per goroutine, reads-from from Step.From, coherence as the order of
// the writes to each object, spawn and join edges from Step.Target.
type graph struct {
	t       *Trace
	first   int         // the first step drawn
	cols    []int       // goroutine ids, one per column
	col     map[int]int // goroutine id -> column
	waits   []int       // goroutine ids of the nodes after the steps
	edges   []edge
	omitted int // steps not drawn
}

func newGraph(t *Trace) *graph {
	g := &graph{t: t, col: map[int]int{}, first: max(0, len(t.Steps)-maxGraphSteps)}
	g.omitted = g.first
	addCol := func(id int) {
		if _, ok := g.col[id]; !ok {
			g.col[id] = len(g.cols)
			g.cols = append(g.cols, id)
		}
	}
	for _, gr := range t.Goroutines {
		addCol(gr.ID)
	}
	last := map[int]int{}         // goroutine -> its last step so far
	firstOf := map[int]int{}      // goroutine -> its first drawn step
	lastWrite := map[string]int{} // object -> its last write so far
	for i := g.first; i < len(t.Steps); i++ {
		s := &t.Steps[i]
		addCol(s.G)
		if p, ok := last[s.G]; ok {
			g.edges = append(g.edges, edge{p, i, edgePO})
		} else {
			firstOf[s.G] = i
		}
		last[s.G] = i
		if s.From != nil && *s.From >= g.first {
			g.edges = append(g.edges, edge{*s.From, i, edgeRF})
		}
		if s.Writes && s.Obj != "" {
			if p, ok := lastWrite[s.Obj]; ok {
				g.edges = append(g.edges, edge{p, i, edgeCO})
			}
			lastWrite[s.Obj] = i
		}
	}
	for _, gr := range t.Goroutines {
		if gr.State != "waiting" && gr.State != "blocked" {
			continue
		}
		n := len(t.Steps) + len(g.waits)
		g.waits = append(g.waits, gr.ID)
		if p, ok := last[gr.ID]; ok {
			g.edges = append(g.edges, edge{p, n, edgePO})
		} else {
			firstOf[gr.ID] = n
		}
	}
	for i := g.first; i < len(t.Steps); i++ {
		s := &t.Steps[i]
		if s.Target == nil || s.Failed {
			continue
		}
		switch s.Kind {
		case "go":
			// To the goroutine's first operation, or to its wait when it
			// could not perform any.
			if f, ok := firstOf[*s.Target]; ok && f > i {
				g.edges = append(g.edges, edge{i, f, edgeSpawn})
			}
		case "join":
			if l, ok := lastBefore(t.Steps, g.first, *s.Target, i); ok {
				g.edges = append(g.edges, edge{l, i, edgeJoin})
			}
		}
	}
	return g
}

// lastBefore returns the last step of goroutine id among steps[from:to].
func lastBefore(steps []Step, from, id, to int) (int, bool) {
	for i := to - 1; i >= from; i-- {
		if steps[i].G == id {
			return i, true
		}
	}
	return 0, false
}

// node returns the goroutine and the two lines of text of node n.
func (g *graph) node(n int) (gid int, op, pos string) {
	if n < len(g.t.Steps) {
		s := &g.t.Steps[n]
		return s.G, fmt.Sprintf("#%d %s", n+1, clean(s.Op)), s.Pos
	}
	gr := g.goroutine(g.waits[n-len(g.t.Steps)])
	return gr.ID, "waits: " + clean(gr.Waiting), gr.WaitPos
}

// name names node n: #N for the N-th step, else the wait of its goroutine.
func (g *graph) name(n int) string {
	if n < len(g.t.Steps) {
		return fmt.Sprintf("#%d", n+1)
	}
	return fmt.Sprintf("the wait of g%d", g.waits[n-len(g.t.Steps)])
}

// failed reports whether node n is the bug: the failing step, or, in a
// deadlock or a leak, a goroutine blocked at the end.
func (g *graph) failed(n int) bool {
	if n < len(g.t.Steps) {
		return g.t.Steps[n].Failed
	}
	return g.t.Bug.Kind == "deadlock" || g.t.Bug.Kind == "goroutine leak"
}

func (g *graph) goroutine(id int) Goroutine {
	for _, gr := range g.t.Goroutines {
		if gr.ID == id {
			return gr
		}
	}
	return Goroutine{ID: id}
}

// heading returns the two lines that name goroutine id: its function, and
// where it was started.
func (g *graph) heading(id int) (name, where string) {
	gr := g.goroutine(id)
	where = "the body"
	if id != 0 {
		where = fmt.Sprintf("go at %s in g%d", gr.Spawn, gr.Parent)
	}
	return clean(fmt.Sprintf("g%d %s", id, gr.Func)), clean(where)
}

// title is the bug in one line.
func (g *graph) title() string {
	return clean(g.t.Bug.Kind + ": " + g.t.Bug.Message)
}

// nodes returns the numbers of the nodes drawn, in order.
func (g *graph) nodes() []int {
	var ns []int
	for i := g.first; i < len(g.t.Steps)+len(g.waits); i++ {
		ns = append(ns, i)
	}
	return ns
}
