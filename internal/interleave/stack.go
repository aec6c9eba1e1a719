package interleave

import (
	"slices"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/event"
)

// Point is a scheduling point of an explorer that enumerates a tree of
// interleavings depth first (dfs, mpor): the choices to explore there,
// fixed when the point is first reached, and the one taken.
type Point struct {
	Opts []engine.Choice
	I    int         // the index in Opts of the choice taken
	Lab  event.Label // the operation taken (Invalid: not yet), to detect nondeterminism
}

// Stack is the scheduling points of the running execution, the shallowest
// first. Nothing found below a point changes its choices: the subtrees of
// the tree share nothing, which is what lets Split hand one over.
type Stack []Point

// Advance moves to the next interleaving of the tree: the next choice of
// the deepest point that has one left, the points below it dropped. It
// reports false when every interleaving was explored.
func (s *Stack) Advance() bool {
	for len(*s) > 0 {
		top := &(*s)[len(*s)-1]
		if top.I+1 < len(top.Opts) {
			top.I++
			top.Lab = event.Label{} // not taken yet
			return true
		}
		*s = (*s)[:len(*s)-1]
	}
	return false
}

// Split takes away the later half of the choices left at the shallowest
// point that has any, which are the last interleavings the tree has
// left, and returns the stack that explores them: the choices taken to
// reach that point, then those choices. It returns nil when no point has
// a choice left.
func (s Stack) Split() Stack {
	for k := range s {
		p := &s[k]
		left := len(p.Opts) - (p.I + 1)
		if left == 0 {
			continue
		}
		cut := len(p.Opts) - (left+1)/2
		n := make(Stack, k+1)
		for j, q := range s[:k] {
			n[j] = Point{Opts: []engine.Choice{q.Opts[q.I]}, Lab: q.Lab}
		}
		n[k] = Point{Opts: slices.Clone(p.Opts[cut:])}
		p.Opts = p.Opts[:cut]
		return n
	}
	return nil
}
