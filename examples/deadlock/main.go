// Command deadlock checks two bank transfers in opposite directions, each
// locking the source account and then the destination: when each transfer
// holds its first lock, neither can take its second.
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/examples/internal/demo"
	"weft.dev/weft/sync"
)

type account struct {
	mu      sync.Mutex
	balance weft.Var[int]
}

// transfer locks from, then to: the order differs between callers.
func transfer(from, to *account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance.Store(from.balance.Load() - amount)
	to.balance.Store(to.balance.Load() + amount)
}

// transferBothWays is the body of the check: two transfers between the same
// accounts, in opposite directions.
func transferBothWays() {
	var a, b account
	a.balance.Store(100)
	b.balance.Store(100)
	g := weft.Go(func() { transfer(&a, &b, 10) })
	transfer(&b, &a, 20)
	g.Join()
}

func main() { demo.Main(transferBothWays) }
