package bench

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/sym"
)

// item is what the clients of the queues and stacks insert: a symbolic
// value, which the data-independent structures never inspect, and the
// index of its inserter, by which the checks tell items apart (under ExEn
// their values collide).
type item struct {
	id  int
	val sym.Int
}

// newItems returns n items, created by main before it starts the
// goroutines, as the paper's clients do. Their values are fresh symbolic
// inputs, or constants for the ExEn clients (explicit): the paper's ExEn
// clients of the queues and stacks insert concrete items and enumerate
// only the data their structure inspects (priorities, slots,
// timestamps).
func newItems(n int, explicit bool) []*item {
	items := make([]*item, n)
	for i := range items {
		v := sym.Const(int64(i))
		if !explicit {
			v = sym.NewInt(fmt.Sprintf("item%d", i))
		}
		items[i] = &item{id: i, val: v}
	}
	return items
}

// collection is a queue or a stack as the workloads use it.
type collection interface {
	// insert adds x.
	insert(x *item)
	// remove removes an item and returns it, or nil when the collection
	// is empty.
	remove() *item
	// contents returns the items left, for main to check once every
	// goroutine has ended.
	contents() []*item
}

// workload returns the client of the 100-0 (rem = 0) and 50-50
// workloads: main creates a collection and ins items (concrete ones for
// the ExEn client, explicit), ins goroutines each insert one and rem
// goroutines each remove one, and main checks that every item ends up
// removed or left in the collection, exactly once.
func workload(mk func() collection, ins, rem int, explicit bool) func() {
	return func() {
		c := mk()
		items := newItems(ins, explicit)
		got := make([]*item, rem)
		fs := make([]func(), 0, ins+rem)
		for _, x := range items {
			fs = append(fs, func() { c.insert(x) })
		}
		for j := range got {
			fs = append(fs, func() { got[j] = c.remove() })
		}
		parallel(fs...)
		checkItems(items, append(got, c.contents()...))
	}
}

// checkItems asserts that out, the items removed (nil for a removal that
// found nothing) and the items left, holds each of items exactly once.
func checkItems(items, out []*item) {
	seen := make([]bool, len(items))
	for _, x := range out {
		if x == nil {
			continue
		}
		weft.Assert(!seen[x.id], "item %d came out twice", x.id)
		seen[x.id] = true
	}
	for id, ok := range seen {
		weft.Assert(ok, "item %d was lost", id)
	}
}
