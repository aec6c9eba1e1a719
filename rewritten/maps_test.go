package rewritten_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/rewritten"
)

type name string

type point struct {
	x int
	y string
}

// TestMapRange: a map's keys come in their order, whatever the order the
// map was filled in, for every kind of key the order is by value; an
// entry deleted before its turn is skipped, an updated one yields its new
// value, NaN keys come last, and a loop can stop early.
func TestMapRange(t *testing.T) {
	check := func(name string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	for range 5 {
		// Each map is filled anew, in another order.
		check("ints", keysOfMap(map[int]bool{3: true, -1: true, 10: true, 0: true}), []string{"-1", "0", "3", "10"})
		check("strings", keysOfMap(map[string]bool{"b": true, "a": true, "ab": true, "": true}), []string{"", "a", "ab", "b"})
		check("named strings", keysOfMap(map[name]bool{"b": true, "a": true, "ab": true}), []string{"a", "ab", "b"})
		check("floats", keysOfMap(map[float32]bool{2.5: true, -1: true, 0: true}), []string{"-1", "0", "2.5"})
		check("bytes", keysOfMap(map[uint8]bool{200: true, 3: true, 17: true}), []string{"3", "17", "200"})
		check("structs", keysOfMap(map[point]bool{{2, "a"}: true, {1, "b"}: true, {1, "a"}: true}), []string{"{1 a}", "{1 b}", "{2 a}"})
		check("interfaces", keysOfMap(map[any]bool{"x": true, 2: true, nil: true, 1: true, false: true}), []string{"<nil>", "false", "1", "2", "x"})
		check("arrays", keysOfMap(map[[2]float64]bool{{1, 2}: true, {1, -2}: true, {0, 5}: true}), []string{"[0 5]", "[1 -2]", "[1 2]"})
		a, b, c := &point{2, "a"}, &point{1, "b"}, &point{1, "a"}
		check("pointers", keysOfMap(map[*point]bool{a: true, b: true, c: true}), []string{"&{1 a}", "&{1 b}", "&{2 a}"})
	}

	m := map[int]string{1: "a", 2: "b", 3: "c", 4: "d"}
	var got []string
	for k, v := range rewritten.MapRange(m) {
		got = append(got, fmt.Sprintf("%v %v", k, v))
		if k == 1 {
			delete(m, 2)
			m[3] = "C"
			m[0] = "new"
		}
		if k == 3 {
			break
		}
	}
	check("changed during the loop", got, []string{"1 a", "3 C"})

	nan := map[float64]int{math.NaN(): 1, 2: 2, math.NaN(): 3, -1: 4}
	got = nil
	for k, v := range rewritten.MapRange(nan) {
		got = append(got, fmt.Sprint(k))
		_ = v
	}
	check("NaN keys", got[:2], []string{"-1", "2"})
	check("NaN keys", got[2:], []string{"NaN", "NaN"})

	m = map[int]string{2: "b", 1: "a"}
	check("MapKeys", keysOfSeq(rewritten.MapKeys(m)), []string{"1", "2"})
	check("MapValues", keysOfSeq(rewritten.MapValues(m)), []string{"a", "b"})
	got = nil
	for k, v := range rewritten.MapAll(m) {
		got = append(got, fmt.Sprintf("%v %v", k, v))
	}
	check("MapAll", got, []string{"1 a", "2 b"})
}

// garbage is allocated between the clients of TestMapRangeReplays, so
// that their addresses are not in the order they were made.
var garbage [][]byte

func keysOfMap[M ~map[K]V, K comparable, V any](m M) []string {
	var out []string
	for k := range rewritten.MapRange(m) {
		out = append(out, fmt.Sprint(k))
	}
	return out
}

func keysOfSeq[T any](seq func(func(T) bool)) []string {
	var out []string
	for v := range seq {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// TestMapRangeReplays: goroutines started in a map's order, each sending
// on its entry's channel and then on a channel they share, are the same in
// every execution: the exploration of the orders of their shared sends
// ends with no nondeterminism (ranging in Go's own order, it reports one)
// and finds the bug that one of them shows.
func TestMapRangeReplays(t *testing.T) {
	res, err := weft.Explore(func() {
		subs := map[string]*weft.Chan[int]{}
		for _, n := range []string{"a", "bb", "ccc", "dddd"} {
			subs[n] = weft.MakeChan[int](1)
		}
		done := weft.MakeChan[int](0)
		for name, c := range rewritten.MapRange(subs) {
			weft.Go(func() {
				c.Send(len(name))
				done.Send(len(name))
			})
		}
		first, _ := done.Recv()
		for range 3 {
			done.Recv()
		}
		for _, c := range rewritten.MapRange(subs) {
			c.Recv()
		}
		weft.Assert(first != 3, "ccc came first")
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed {
		t.Fatalf("got bugs %v, want the assertion's", res.Bugs)
	}
	// A set of clients, pointers to structs that hold nothing but their
	// channels: ordered by the channels' IDs, where their addresses
	// differ from one execution to the next.
	type client struct{ out *weft.Chan[int] }
	res, err = weft.Explore(func() {
		clients := map[*client]bool{}
		for range 5 {
			garbage = append(garbage, make([]byte, 24))
			clients[&client{weft.MakeChan[int](1)}] = true
		}
		done := weft.MakeChan[int](0)
		for c := range rewritten.MapRange(clients) {
			weft.Go(func() {
				c.out.Send(1)
				done.Send(1)
			})
		}
		for range 5 {
			done.Recv()
		}
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 {
		t.Errorf("clients: got %v", res.Bugs[0])
	}
	res, err = weft.Explore(func() {
		subs := map[string]*weft.Chan[int]{"a": weft.MakeChan[int](1), "bb": weft.MakeChan[int](1)}
		done := weft.MakeChan[int](0)
		for name, c := range rewritten.MapRange(subs) {
			weft.Go(func() {
				c.Send(len(name))
				done.Send(len(name))
			})
		}
		done.Recv()
		done.Recv()
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || !res.Exhaustive || res.Complete != 2 {
		t.Errorf("got %+v, want 2 complete executions and no bug", res)
	}
}
