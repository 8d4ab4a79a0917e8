package openaicompat

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownerStore is an ItemStore and a ResponseStore that keeps each owner's
// items and responses apart, as RequestOptions.Owner asks.
type ownerStore struct {
	items map[string]map[string]Item   // owner, id
	resps map[string]map[string][]Item // owner, id
}

func (s ownerStore) Item(owner, id string) (Item, bool) { it, ok := s.items[owner][id]; return it, ok }
func (s ownerStore) ResponseItems(owner, id string) ([]Item, bool) {
	its, ok := s.resps[owner][id]
	return its, ok
}

// TestOwnerStores checks that the stores are asked for the request's
// owner's ids: another owner's item or response is refused with exactly
// the error of an id that no one stored, which quotes nothing stored.
func TestOwnerStores(t *testing.T) {
	const secret = "the launch code is 0000"
	aItems := map[string]Item{
		"rs_a": {Type: "reasoning", ID: "rs_a", Content: &ItemContent{Parts: []ItemPart{{Type: "reasoning_text", Text: secret}}}},
		"fc_a": {Type: "function_call", ID: "fc_a", CallID: "call_secret", Name: "get_secret", Arguments: `{"q":"` + secret + `"}`},
	}
	full := ownerStore{
		items: map[string]map[string]Item{"a": aItems},
		resps: map[string]map[string][]Item{"a": {"resp_a": {
			{Type: "message", Role: "user", Content: &ItemContent{Text: secret}}, aItems["rs_a"], aItems["fc_a"],
		}}},
	}
	empty := ownerStore{}
	const tools = `"tools":[{"type":"function","name":"get_secret"}]`
	for _, body := range []string{
		`{` + tools + `,"input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"rs_a"}]}`,
		`{` + tools + `,"input":[{"role":"user","content":"hi"},{"id":"fc_a"},{"type":"function_call_output","call_id":"call_secret","output":"x"}]}`,
		`{` + tools + `,"previous_response_id":"resp_a","input":"go on"}`,
		`{` + tools + `,"previous_response_id":"resp_a","input":[{"type":"function_call_output","call_id":"call_secret","output":"x"}]}`,
	} {
		var r ResponsesRequest
		require.NoError(t, DecodeRequest([]byte(body), &r))
		// The owner resolves its own ids; the last two bodies are errors
		// of the request itself, which may name its own stored call.
		_, errA := r.Conversation(&RequestOptions{Owner: "a", Items: full, Responses: full})
		if errA != nil {
			assert.ErrorIs(t, errA, ErrMissingToolResult, "%s: owner a", body)
		}
		for _, owner := range []string{"b", ""} {
			_, got := r.Conversation(&RequestOptions{Owner: owner, Items: full, Responses: full})
			_, want := r.Conversation(&RequestOptions{Owner: owner, Items: empty, Responses: empty})
			if !assert.Error(t, got, "%s: owner %q", body, owner) || !assert.Error(t, want, "%s: unknown ids", body) ||
				!assert.EqualError(t, got, want.Error(), "%s: owner %q: want the error of an unknown id", body, owner) {
				continue
			}
			gs, gb := HTTPError(got)
			ws, wb := HTTPError(want)
			assert.Equal(t, 400, gs, "%s: owner %q", body, owner)
			assert.Equal(t, ws, gs, "%s: owner %q", body, owner)
			assert.Equal(t, marshalLine(wb), marshalLine(gb), "%s: owner %q", body, owner)
			b := marshalLine(gb)
			assert.NotContains(t, b, "secret", "%s: owner %q: the error quotes a's items", body, owner)
			assert.NotContains(t, b, "launch", "%s: owner %q: the error quotes a's items", body, owner)

		}
	}
}
