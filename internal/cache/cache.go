// Package cache is the module's one bounded cache: a concurrency-safe map
// from strings to values that evicts the least recently used entries so that
// the memory its entries hold never exceeds a budget fixed at creation.
//
// Memory is accounted, not measured: each entry counts the length of its key,
// the size its caller declares for the value (the bytes the value holds that
// the cache keeps alive, such as a token slice's 4 bytes per token or a
// compiled schema's estimated footprint) and [EntryOverhead] for the map slot
// and the list links. The callers own their estimates; the tests of each
// caller check them against the heap.
package cache

import "sync"

// EntryOverhead is the bytes counted for each entry on top of its key and
// declared value size: the map slot, the entry struct and its list links.
const EntryOverhead = 128

// Cache is a least-recently-used cache bounded by the memory its entries
// hold. It is safe for concurrent use. The zero value is not usable; create
// one with [New].
type Cache[V any] struct {
	mu       sync.Mutex
	budget   int64
	used     int64
	items    map[string]*entry[V]
	head     *entry[V] // most recently used
	tail     *entry[V] // least recently used
	maxEntry int64
}

type entry[V any] struct {
	key        string
	val        V
	size       int64
	prev, next *entry[V]
}

// New returns a cache that holds at most budget bytes of entries, as counted
// above. An entry larger than an eighth of the budget is never stored, so that
// one caller with huge values cannot flush everyone else's.
func New[V any](budget int64) *Cache[V] {
	return &Cache[V]{budget: budget, maxEntry: budget / 8, items: make(map[string]*entry[V])}
}

// Get returns the value stored under key and marks it most recently used.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.moveToFront(e)
	return e.val, true
}

// GetBytes is Get for a key held as bytes, without converting it.
func (c *Cache[V]) GetBytes(key []byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[string(key)]
	if !ok {
		var zero V
		return zero, false
	}
	c.moveToFront(e)
	return e.val, true
}

// Put stores v under key. size is the memory v holds, in bytes, beyond the
// key; the entry counts len(key) + size + EntryOverhead against the budget.
// Least recently used entries are evicted until the new one fits; an entry
// over an eighth of the budget is not stored. Putting a key already present
// replaces its value.
func (c *Cache[V]) Put(key string, v V, size int64) {
	if size < 0 {
		size = 0
	}
	total := int64(len(key)) + size + EntryOverhead
	if total > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.used += total - e.size
		e.val, e.size = v, total
		c.moveToFront(e)
	} else {
		e := &entry[V]{key: key, val: v, size: total}
		c.items[key] = e
		c.used += total
		c.pushFront(e)
	}
	for c.used > c.budget && c.tail != nil {
		old := c.tail
		c.unlink(old)
		delete(c.items, old.key)
		c.used -= old.size
	}
}

// Len returns the number of entries.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Bytes returns the memory the entries hold, as counted against the budget.
func (c *Cache[V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Budget returns the budget the cache was created with.
func (c *Cache[V]) Budget() int64 { return c.budget }

func (c *Cache[V]) moveToFront(e *entry[V]) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *Cache[V]) pushFront(e *entry[V]) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *Cache[V]) unlink(e *entry[V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
