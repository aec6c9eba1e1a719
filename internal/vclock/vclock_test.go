package vclock

import (
	"slices"
	"testing"
)

func TestClock(t *testing.T) {
	var a, b Clock
	a.Tick(0)
	a.Tick(0)
	b.Tick(2)
	if a.At(0) != 2 || a.At(2) != 0 || b.At(2) != 1 {
		t.Fatalf("ticks: a = %v, b = %v", a, b)
	}
	a.Join(b)
	if want := (Clock{2, 0, 1}); !slices.Equal(a, want) {
		t.Fatalf("join = %v, want %v", a, want)
	}
	b.Set(a)
	b.Tick(1)
	if a.At(1) != 0 || b.At(1) != 1 {
		t.Fatalf("Set shares the array: a = %v, b = %v", a, b)
	}
}
