// Package vclock provides vector clocks over goroutine ids, for the engines
// that order the events of an interleaving by happens-before.
package vclock

// Clock counts, by goroutine id, the events of each goroutine that happen
// before (or are) an event. Ids past its length count zero.
type Clock []int32

// Tick counts one more event of goroutine id.
func (c *Clock) Tick(id int32) {
	for int(id) >= len(*c) {
		*c = append(*c, 0)
	}
	(*c)[id]++
}

// At returns the count of goroutine id.
func (c Clock) At(id int32) int32 {
	if int(id) < len(c) {
		return c[id]
	}
	return 0
}

// Join makes c the pointwise maximum of c and d: what happens before
// either happens before the join.
func (c *Clock) Join(d Clock) {
	for len(*c) < len(d) {
		*c = append(*c, 0)
	}
	for i, n := range d {
		if n > (*c)[i] {
			(*c)[i] = n
		}
	}
}

// Set makes c a copy of d, reusing c's array.
func (c *Clock) Set(d Clock) { *c = append((*c)[:0], d...) }
