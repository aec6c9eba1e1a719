package smt

import (
	"container/list"
	"encoding/binary"

	"weft.dev/weft/internal/sym"
)

// entry is a cached decision of an independent part: its result and, when
// Sat, the least model as values of the part's sorted variables.
type entry struct {
	res  Result
	vals []int64
}

// lru is a bounded cache evicting the least recently used entry.
type lru struct {
	max   int
	order *list.List // of *lruItem, most recently used first
	items map[string]*list.Element
}

type lruItem struct {
	key string
	e   entry
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// cacheKey encodes a sorted set of terms.
func cacheKey(terms []sym.Term) string {
	b := make([]byte, 0, 4*len(terms))
	for _, t := range terms {
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
	}
	return string(b)
}

func (c *lru) get(key string) (entry, bool) {
	el, ok := c.items[key]
	if !ok {
		return entry{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruItem).e, true
}

func (c *lru) put(key string, e entry) {
	if el, ok := c.items[key]; ok {
		el.Value.(*lruItem).e = e
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruItem{key: key, e: e})
	if c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruItem).key)
	}
}

func (c *lru) clear() {
	c.order.Init()
	clear(c.items)
}

func (c *lru) len() int { return c.order.Len() }
