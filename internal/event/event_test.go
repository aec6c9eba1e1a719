package event

import (
	"testing"
	"unsafe"
)

// TestSameKindLayout checks that Kind, Op, OKind, Typed and Arg fill the
// first eight bytes of a Label, with no padding, as SameKind assumes.
func TestSameKindLayout(t *testing.T) {
	var l Label
	fields := []struct {
		name         string
		offset, size uintptr
		want         uintptr
	}{
		{"Kind", unsafe.Offsetof(l.Kind), unsafe.Sizeof(l.Kind), 0},
		{"Op", unsafe.Offsetof(l.Op), unsafe.Sizeof(l.Op), 1},
		{"OKind", unsafe.Offsetof(l.OKind), unsafe.Sizeof(l.OKind), 2},
		{"Typed", unsafe.Offsetof(l.Typed), unsafe.Sizeof(l.Typed), 3},
		{"Arg", unsafe.Offsetof(l.Arg), unsafe.Sizeof(l.Arg), 4},
	}
	end := uintptr(0)
	for _, f := range fields {
		if f.offset != f.want || f.offset != end {
			t.Errorf("%s at offset %d, want %d", f.name, f.offset, f.want)
		}
		end = f.offset + f.size
	}
	if end != 8 {
		t.Errorf("the fields end at byte %d, want 8", end)
	}
}

// TestSameKind checks SameKind against the comparison of the fields one
// by one.
func TestSameKind(t *testing.T) {
	base := Label{Kind: RMW, Op: CAS, OKind: Atomic, Typed: true, Arg: 3, Width: 64, Obj: 2, A: Value{N: 1}}
	tests := []struct {
		name string
		mod  func(*Label)
		want bool
	}{
		{"same", func(*Label) {}, true},
		{"other object, width and values", func(l *Label) { l.Obj, l.Width, l.A, l.B = 5, 32, Value{N: 9}, Value{P: "x"} }, true},
		{"Kind", func(l *Label) { l.Kind = Load }, false},
		{"Op", func(l *Label) { l.Op = Swap }, false},
		{"OKind", func(l *Label) { l.OKind = VarObj }, false},
		{"Typed", func(l *Label) { l.Typed = false }, false},
		{"Arg", func(l *Label) { l.Arg = 4 }, false},
		{"Arg's high byte", func(l *Label) { l.Arg = 3 | 1<<24 }, false},
	}
	for _, tc := range tests {
		m := base
		tc.mod(&m)
		if got := base.SameKind(&m); got != tc.want {
			t.Errorf("%s: SameKind = %v, want %v", tc.name, got, tc.want)
		}
		if got, want := base.SameOp(&m), tc.want && base.Obj == m.Obj; got != want {
			t.Errorf("%s: SameOp = %v, want %v", tc.name, got, want)
		}
	}
}
