package interleave

import (
	"fmt"
	"slices"
	"testing"

	"weft.dev/weft/internal/engine"
)

// tree is a tree of interleavings: the choices at the end of a path, none
// at a leaf. Its shape depends on the path, as a program's does.
func tree(path []int32) []engine.Choice {
	if len(path) == 6 {
		return nil
	}
	var sum int32
	for _, c := range path {
		sum += c
	}
	n := 1 + (sum+2*int32(len(path)))%3
	opts := make([]engine.Choice, n)
	for i := range opts {
		opts[i] = engine.Choice{G: int32(i)}
	}
	return opts
}

// walk runs one execution of s: the choices of its points, then the
// first choice of each new point, down to a leaf, whose path it returns.
func walk(s *Stack) string {
	var path []int32
	for d := 0; ; d++ {
		if d == len(*s) {
			opts := tree(path)
			if len(opts) == 0 {
				return fmt.Sprint(path)
			}
			*s = append(*s, Point{Opts: opts})
		}
		p := &(*s)[d]
		path = append(path, p.Opts[p.I].G)
	}
}

// explore runs the executions of s (the first from s as it is, when
// first), after each of which split decides whether s splits, and returns
// the leaves of s, then those of the parts split from it, each explored
// the same way.
func explore(s *Stack, first bool, split func() bool) []string {
	var leaves, later []string
	for first || s.Advance() {
		first = false
		leaves = append(leaves, walk(s))
		if split() {
			if n := s.Split(); n != nil {
				// A part explores the last executions: after s's.
				later = append(explore(&n, true, split), later...)
			}
		}
	}
	return append(leaves, later...)
}

// TestStackSplit checks that the parts split from a stack, at any
// moment, explore exactly the leaves the whole exploration does, in its
// order once each part follows those before it.
func TestStackSplit(t *testing.T) {
	var s Stack
	whole := []string{walk(&s)}
	for s.Advance() {
		whole = append(whole, walk(&s))
	}
	if len(whole) < 20 {
		t.Fatalf("the tree has %d leaves: too few to split", len(whole))
	}
	for every := 1; every <= 5; every++ {
		t.Run(fmt.Sprintf("every %d", every), func(t *testing.T) {
			var s Stack
			n := 0
			splits := 0
			got := explore(&s, true, func() bool {
				n++
				if n%every == 0 {
					splits++
					return true
				}
				return false
			})
			if !slices.Equal(got, whole) {
				t.Errorf("split every %d executions:\n%v\nwant\n%v", every, got, whole)
			}
			if splits == 0 {
				t.Error("never split")
			}
		})
	}
}
