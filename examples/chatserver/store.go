package main

import (
	"encoding/json"

	"github.com/go-harmony/harmony/internal/cache"
	"github.com/go-harmony/harmony/openaicompat"
)

// itemStore keeps the output items of responses in memory, by id, for the
// Responses API's item references (what clients send back for earlier
// output when store is true, the API's default). It is bounded by the
// bytes of the items' JSON: the least recently used go first. It is safe
// for concurrent use.
type itemStore struct {
	c *cache.Cache[openaicompat.Item]
}

// newItemStore returns a store of at most budget bytes.
func newItemStore(budget int64) *itemStore {
	return &itemStore{c: cache.New[openaicompat.Item](budget)}
}

// Item returns the stored item with the given id (openaicompat.ItemStore).
func (s *itemStore) Item(id string) (openaicompat.Item, bool) { return s.c.Get(id) }

// put stores the items that have ids.
func (s *itemStore) put(items []openaicompat.Item) {
	for _, it := range items {
		if it.ID == "" {
			continue
		}
		size := 256
		if b, err := json.Marshal(it); err == nil {
			size = len(b)
		}
		s.c.Put(it.ID, it, int64(size))
	}
}
