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

// transfers are the transfers of TestBank, one goroutine each.
var transfers = [][3]int{{0, 1, 10}, {1, 2, 20}, {2, 0, 30}, {0, 2, 40}, {1, 0, 50}}

// Transfers is the body of TestBank: five goroutines transfer between the
// accounts while the body sums them. Its 2,520 executions are enough for
// every shard of 4 to have some: each shard first runs the start of the
// exploration, about 256 executions per shard, which shard 0 alone counts,
// so that a smaller exploration is shard 0's alone.
func Transfers() {
	var b Bank
	gs := make([]*weft.Goroutine, len(transfers))
	for i, tr := range transfers {
		gs[i] = weft.Go(func() { b.Transfer(tr[0], tr[1], tr[2]) })
	}
	weft.Assert(b.Total() == 0, "money was made or lost: total %d", b.Total())
	for _, g := range gs {
		g.Join()
	}
}
