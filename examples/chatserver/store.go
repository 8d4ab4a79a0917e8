package main

import (
	"encoding/json"
	"strconv"

	"github.com/go-harmony/harmony/internal/cache"
	"github.com/go-harmony/harmony/openaicompat"
)

// itemStore keeps what the Responses API's store asks of a server, in
// memory: the output items of responses by id, for item references (what
// clients send back for earlier output when store is true, the API's
// default), and the conversation each response ended (the items before its
// input, its input and its output) by the response's id, for
// previous_response_id. It is safe for concurrent use.
//
// Everything is kept for an owner, the tenant of the request (the API key's,
// or "" for all when the server has no keys), and is found only by that
// owner: another tenant's ids are unknown.
//
// All of it counts against one budget of bytes, least recently used
// dropped first, and what is counted is what is kept: each item is kept
// as the JSON its MarshalJSON writes, the fields of its type — a decoded
// item also holds whatever other fields the client sent, of any size,
// which are not kept — and a conversation as the JSON array of its items.
// An entry counts the bytes of its JSON and of its key, and
// cache.EntryOverhead.
type itemStore struct {
	c *cache.Cache[string]
}

// newItemStore returns a store of at most budget bytes in all.
func newItemStore(budget int64) *itemStore {
	return &itemStore{c: cache.New[string](budget)}
}

// Item returns the item with the given id stored for owner
// (openaicompat.ItemStore).
func (s *itemStore) Item(owner, id string) (openaicompat.Item, bool) {
	var it openaicompat.Item
	return it, s.get(storeKey('i', owner, id), &it)
}

// ResponseItems returns the conversation of the response with the given
// id stored for owner (openaicompat.ResponseStore).
func (s *itemStore) ResponseItems(owner, id string) ([]openaicompat.Item, bool) {
	var items []openaicompat.Item
	return items, s.get(storeKey('r', owner, id), &items)
}

// get decodes the JSON stored under key into v, and reports whether there
// was any.
func (s *itemStore) get(key string, v any) bool {
	data, ok := s.c.Get(key)
	return ok && json.Unmarshal([]byte(data), v) == nil
}

// storeKey is the key of an item ('i') or a response ('r') stored for
// owner: the kind, the owner's length (so that no owner and id run into
// another pair), the owner and the id. One owner's ids are never
// another's.
func storeKey(kind byte, owner, id string) string {
	return string(kind) + strconv.Itoa(len(owner)) + ":" + owner + id
}

// putResponse stores, for owner, the output items of the response to req
// and the conversation it ended.
func (s *itemStore) putResponse(owner string, req *openaicompat.ResponsesRequest, resp *openaicompat.Response) {
	for _, it := range resp.Output {
		if it.ID != "" {
			s.put(storeKey('i', owner, it.ID), it)
		}
	}
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
	s.put(storeKey('r', owner, resp.ID), conv)
}

// put stores v's JSON under key; the cache drops what does not fit.
func (s *itemStore) put(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	// A string of its own: exactly the bytes counted, where the marshalled
	// slice may have more capacity.
	s.c.Put(key, string(data), int64(len(data)))
}
