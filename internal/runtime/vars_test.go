package runtime

import (
	"os"
	"reflect"
	"testing"
	"unsafe"
)

type node struct {
	next  *node
	vals  []int
	byKey map[string]*node
	file  *os.File
	any   any
}

// TestCopier checks the deep copy that resets package variables: maps,
// slices and the nodes of this package are new, with the sharing among
// pointers kept (a cycle stays a cycle), unexported fields included; a
// pointer to another package's type (*os.File) is shared.
func TestCopier(t *testing.T) {
	a := &node{vals: []int{1, 2}, byKey: map[string]*node{}, file: os.Stdout}
	b := &node{next: a, any: a}
	a.next = b
	a.byKey["b"] = b
	c := copier{deep: func(t reflect.Type) bool { return t.PkgPath() == "" || t.PkgPath() == reflect.TypeOf(node{}).PkgPath() }, seen: map[unsafe.Pointer]reflect.Value{}}
	var got *node
	c.into(reflect.ValueOf(&got).Elem(), reflect.ValueOf(a))
	switch {
	case got == a || got.next == b:
		t.Fatal("the nodes were not copied")
	case got.next.next != got || got.byKey["b"] != got.next || got.next.any != any(got):
		t.Error("the sharing among the copied pointers was lost")
	case &got.vals[0] == &a.vals[0] || len(got.vals) != 2 || got.vals[1] != 2:
		t.Errorf("vals %v: not a copy", got.vals)
	case got.file != os.Stdout:
		t.Error("a pointer to another package's type was copied")
	}
	got.byKey["c"] = nil
	got.vals[0] = 9
	if len(a.byKey) != 1 || a.vals[0] != 1 {
		t.Error("changing the copy changed the original")
	}
}
