package sync_test

import (
	"fmt"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// TestOnceFuncs checks that f runs once whoever calls first, that every
// caller sees its result, and that a panic of f is every call's.
func TestOnceFuncs(t *testing.T) {
	tests := []struct {
		name string
		// body returns the outcome of two concurrent calls and of one
		// after them.
		body func() string
		want []string
	}{
		{"OnceFunc", func() string {
			var runs atomic.Int32
			f := sync.OnceFunc(func() { runs.Add(1) })
			g := weft.Go(f)
			f()
			g.Join()
			f()
			return fmt.Sprint(runs.Load())
		}, []string{"1"}},
		{"OnceValue", func() string {
			var runs atomic.Int32
			f := sync.OnceValue(func() int32 { return runs.Add(1) * 10 })
			var a int32
			g := weft.Go(func() { a = f() })
			b := f()
			g.Join()
			return fmt.Sprint(a, b, f(), runs.Load())
		}, []string{"10 10 10 1"}},
		{"OnceValues", func() string {
			var runs atomic.Int32
			f := sync.OnceValues(func() (int32, error) { return runs.Add(1), nil })
			var a int32
			g := weft.Go(func() { a, _ = f() })
			b, err := f()
			g.Join()
			return fmt.Sprint(a, b, err, runs.Load())
		}, []string{"1 1 <nil> 1"}},
		{"a panic is every call's", func() string {
			var runs atomic.Int32
			f := sync.OnceValue(func() int { runs.Add(1); panic("boom") })
			call := func() (p any) {
				defer func() { p = recover() }()
				return f()
			}
			var a any
			g := weft.Go(func() { a = call() })
			b := call()
			g.Join()
			return fmt.Sprintln(a, b, call(), runs.Load())
		}, []string{"boom boom boom 1\n"}},
		{"OnceFunc panics", func() string {
			f := sync.OnceFunc(func() { panic("boom") })
			return fmt.Sprintln(panics(f), panics(f))
		}, []string{"boom boom\n"}},
		{"OnceValues panics", func() string {
			f := sync.OnceValues(func() (int, int) { panic("boom") })
			call := func() { f() }
			return fmt.Sprintln(panics(call), panics(call))
		}, []string{"boom boom\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, res := outcomes(t, tc.body)
			if len(res.Bugs) > 0 {
				t.Fatal(res.Bugs)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("outcomes %q, want %q", got, tc.want)
			}
		})
	}
}
