// Package shards is a check explored in shards, one per machine: job.yaml
// runs it as a Kubernetes Indexed Job (the completion index is the
// shard), workflow.yml as a GitHub Actions matrix; weft merge sums the
// shards' results. The check is TestBank: goroutines move money between
// the accounts of a Bank, and the total must not change.
package shards

import (
	"weft.dev/weft"
	"weft.dev/weft/sync"
)

// Bank holds accounts, each with its own lock.
type Bank struct {
	mu  [3]sync.Mutex
	bal [3]weft.Var[int]
}

// Transfer moves amount from account from to account to. It takes the two
// locks in the order of the accounts, so that two transfers in opposite
// directions do not deadlock.
func (b *Bank) Transfer(from, to, amount int) {
	first, second := min(from, to), max(from, to)
	b.mu[first].Lock()
	b.mu[second].Lock()
	b.bal[from].Store(b.bal[from].Load() - amount)
	b.bal[to].Store(b.bal[to].Load() + amount)
	b.mu[second].Unlock()
	b.mu[first].Unlock()
}

// Total returns the sum of the balances, taking every lock.
func (b *Bank) Total() int {
	for i := range b.mu {
		b.mu[i].Lock()
	}
	t := 0
	for i := range b.bal {
		t += b.bal[i].Load()
	}
	for i := range b.mu {
		b.mu[i].Unlock()
	}
	return t
}

// Transfers is the body of TestBank: three goroutines transfer between
// the accounts while the body sums them.
func Transfers() {
	var b Bank
	g1 := weft.Go(func() { b.Transfer(0, 1, 10) })
	g2 := weft.Go(func() { b.Transfer(1, 2, 20) })
	g3 := weft.Go(func() { b.Transfer(2, 0, 30) })
	weft.Assert(b.Total() == 0, "money was made or lost: total %d", b.Total())
	g1.Join()
	g2.Join()
	g3.Join()
}
