package sync

import (
	"fmt"
	"slices"

	"weft.dev/weft"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/runtime"
)

// A Pool is a set of temporary objects that may be individually saved and
// retrieved, as the standard library's sync.Pool. The zero Pool is empty;
// a Pool must not be copied after first use.
//
// What is modelled: the items Put and not yet taken are one atomic
// location, and a Get that finds k of them is a choice of k+1 outcomes,
// each explored: it takes any one of them, or it misses and returns the
// result of New. A miss is always possible, even right after a Put, and
// no order of the items is preferred. That is sound, and every behaviour
// explored is one of sync.Pool's: its documentation says that any item
// may be removed at any time without notification, that Get may ignore
// the pool and treat it as empty, and that callers must assume no
// relation between the values passed to Put and those Get returns. So a
// program correct with a sync.Pool is correct whichever outcome each Get
// has, and weft reports the bug of one that is not: one that keeps using
// an object it put back (another goroutine may get it), or that expects
// to get back what it put. Put synchronizes before the Get that takes its
// item, as the Go memory model says; a Get also reads the pool when it
// misses, which orders it after the Puts it saw: a data race between
// them is not reported.
type Pool struct {
	_ noCopy
	o runtime.Obj // *poolItems, or nothing when empty

	// New optionally specifies a function to generate a value when Get
	// would otherwise return nil. It may not be changed concurrently with
	// calls to Get.
	New func() any
}

// poolItems are the items in a pool: never modified, so that a
// compare-and-swap compares pointers.
type poolItems struct{ list []any }

func itemsOf(v event.Value) []any {
	if v.P == nil {
		return nil
	}
	return v.P.(*poolItems).list
}

func (p *Pool) do(lab event.Label, what string) event.Result {
	lab.OKind = event.Atomic
	return runtime.Do(&p.o, lab, what)
}

// Put adds x to the pool.
func (p *Pool) Put(x any) {
	if x == nil {
		return
	}
	const what = "Pool.Put"
	cur := p.do(event.Label{Kind: event.Load}, what).V
	note("Pool.Put: finds %s", itemCount(len(itemsOf(cur))))
	for {
		items := &poolItems{append(slices.Clip(itemsOf(cur)), x)}
		r := p.do(event.Label{Kind: event.RMW, Op: event.CAS, A: cur, B: event.Value{P: items}}, what)
		if r.OK {
			note("Pool.Put: puts item %d", len(items.list))
			return
		}
		cur = r.V
		note("Pool.Put: the pool changed: %s", itemCount(len(itemsOf(cur))))
	}
}

// Get selects an arbitrary item from the Pool, removes it from the Pool,
// and returns it to the caller. Get may choose to ignore the pool and
// treat it as empty: every choice is explored (see Pool). If Get would
// otherwise return nil and p.New is non-nil, Get returns the result of
// calling p.New.
func (p *Pool) Get() any {
	const what = "Pool.Get"
	cur := p.do(event.Label{Kind: event.Load}, what).V
	note("Pool.Get: finds %s", itemCount(len(itemsOf(cur))))
	for {
		items := itemsOf(cur)
		if len(items) == 0 {
			break
		}
		i := choose(len(items)+1, what)
		if i == len(items) {
			note("Pool.Get: misses")
			break
		}
		note("Pool.Get: chooses item %d", i+1)
		var next event.Value // empty
		if len(items) > 1 {
			next.P = &poolItems{slices.Delete(slices.Clone(items), i, i+1)}
		}
		r := p.do(event.Label{Kind: event.RMW, Op: event.CAS, A: cur, B: next}, what)
		if r.OK {
			note("Pool.Get: takes item %d", i+1)
			return items[i]
		}
		cur = r.V
		note("Pool.Get: the pool changed: %s", itemCount(len(itemsOf(cur))))
	}
	if p.New != nil {
		return p.New()
	}
	return nil
}

// itemCount says how many items there are, in words.
func itemCount(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// choose returns an index in [0, n), each explored: the case a select
// takes among n receives from a closed channel, all ready, made for the
// purpose by the calling goroutine (a channel made lazily, once per
// execution, would be made by whichever goroutine came first).
func choose(n int, what string) int {
	if runtime.Tracing() {
		runtime.Note(fmt.Sprintf("%s: a choice of %d", what, n))
	}
	c := weft.MakeChan[struct{}](0)
	if runtime.Tracing() {
		runtime.Note(fmt.Sprintf("%s: a choice of %d", what, n))
	}
	c.Close()
	cases := make([]weft.SelectCase, n)
	for i := range cases {
		cases[i] = c.RecvCase(nil, nil)
	}
	if runtime.Tracing() {
		runtime.Note(fmt.Sprintf("%s: a choice of %d", what, n))
	}
	return weft.Select(cases...)
}
