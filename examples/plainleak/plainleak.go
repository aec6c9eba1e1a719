// Package plainleak is plain Go, with no weft in it: a lookup with a
// timeout that leaks a goroutine each time the timeout wins. Fetch asks the
// backend on a goroutine of its own and waits for the first of its reply
// and the timer; the reply channel is unbuffered, so when the timer wins,
// nobody ever receives the reply and the goroutine blocks forever on its
// send.
//
// Its test passes under go test, where the backend answers long before the
// timer fires. weft test explores the timer firing first too, and reports
// the leaked goroutine, the channel it waits on, and the interleaving:
//
//	go run ./cmd/weft test ./examples/plainleak
//
// The fix is a reply channel with room for the late reply:
// make(chan string, 1).
package plainleak

import (
	"errors"
	"time"
)

// ErrTimeout is the error of a lookup that took longer than its timeout.
var ErrTimeout = errors.New("plainleak: timeout")

// Fetch returns what backend answers for key, or ErrTimeout when it takes
// longer than timeout.
func Fetch(backend func(key string) string, key string, timeout time.Duration) (string, error) {
	reply := make(chan string) // the bug: no room for a reply nobody waits for
	go func() {
		reply <- backend(key)
	}()
	select {
	case v := <-reply:
		return v, nil
	case <-time.After(timeout):
		return "", ErrTimeout
	}
}
