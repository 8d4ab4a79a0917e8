package main

import (
	"encoding/json"
	"strconv"

	"github.com/go-harmony/harmony/internal/cache"
	"github.com/go-harmony/harmony/openaicompat"
)

// itemStore keeps the output items of responses in memory, by id, for the
// Responses API's item references (what clients send back for earlier
// output when store is true, the API's default). It is bounded by the
// bytes of the items' JSON: the least recently used go first. It is safe
// for concurrent use.
//
// It also keeps each response's conversation (the items before its input,
// its input and its output) by the response's id, for previous_response_id,
// in a second cache of the same budget.
type itemStore struct {
	c     *cache.Cache[openaicompat.Item]
	convs *cache.Cache[[]openaicompat.Item]
}

// newItemStore returns a store of at most budget bytes, twice: for items,
// and for the conversations of responses.
func newItemStore(budget int64) *itemStore {
	return &itemStore{c: cache.New[openaicompat.Item](budget), convs: cache.New[[]openaicompat.Item](budget)}
}

// Item returns the item with the given id stored for owner
// (openaicompat.ItemStore).
func (s *itemStore) Item(owner, id string) (openaicompat.Item, bool) { return s.c.Get(storeKey(owner, id)) }

// ResponseItems returns the conversation of the response with the given
// id stored for owner (openaicompat.ResponseStore).
func (s *itemStore) ResponseItems(owner, id string) ([]openaicompat.Item, bool) {
	return s.convs.Get(storeKey(owner, id))
}

// storeKey is the key of an id stored for owner: the owner's length, so
// that no owner and id run into another pair, the owner and the id. One
// owner's ids are never another's.
func storeKey(owner, id string) string { return strconv.Itoa(len(owner)) + ":" + owner + id }

// putResponse stores, for owner, the output items of the response to req
// and the conversation it ended.
func (s *itemStore) putResponse(owner string, req *openaicompat.ResponsesRequest, resp *openaicompat.Response) {
	s.put(owner, resp.Output)
	var conv []openaicompat.Item
	if req.PreviousResponseID != "" {
		prev, _ := s.ResponseItems(owner, req.PreviousResponseID)
		conv = append(conv, prev...)
	}
	if req.Input.Items != nil {
		conv = append(conv, req.Input.Items...)
	} else {
		conv = append(conv, openaicompat.Item{Type: "message", Role: "user", Content: &openaicompat.ItemContent{Text: req.Input.Text}})
	}
	conv = append(conv, resp.Output...)
	size := 1024
	if b, err := json.Marshal(conv); err == nil {
		size = len(b)
	}
	s.convs.Put(storeKey(owner, resp.ID), conv, int64(size))
}

// put stores the items that have ids, for owner.
func (s *itemStore) put(owner string, items []openaicompat.Item) {
	for _, it := range items {
		if it.ID == "" {
			continue
		}
		size := 256
		if b, err := json.Marshal(it); err == nil {
			size = len(b)
		}
		s.c.Put(storeKey(owner, it.ID), it, int64(size))
	}
}
