package weft_test

import (
	"strings"
	"sync"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// TestPlainGoroutines: a body in plain Go, whose goroutines weft does not
// run, is an error rather than a check that explored one execution and
// passed; a body that only computes is not.
func TestPlainGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		body  func()
		plain bool
	}{
		{"go and sync", func() {
			var mu sync.Mutex
			var wg sync.WaitGroup
			n := 0
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mu.Lock()
					n++
					mu.Unlock()
				}()
			}
			wg.Wait()
		}, true},
		{"a channel", func() {
			c := make(chan int)
			go func() { c <- 1 }()
			<-c
		}, true},
		{"plain computation", func() {
			n := 0
			for i := range 10 {
				n += i
			}
			_ = n
		}, false},
		{"weft.Go", func() {
			var x atomic.Int32
			weft.Go(func() { x.Add(1) }).Join()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := weft.Explore(tt.body)
			if got := err != nil && strings.Contains(err.Error(), "performed no operation that weft models"); got != tt.plain {
				t.Errorf("error %v, want one about plain Go: %v", err, tt.plain)
			}
			if tt.plain && res.Executions != 1 {
				t.Errorf("%d executions, want the one that ran", res.Executions)
			}
		})
	}
}
