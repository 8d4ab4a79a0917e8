package benchdata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPinned pins the conversations byte for byte: a change to them changes
// what every benchmark measures, and numbers from before and after no longer
// compare.
func TestPinned(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		sum  string
	}{
		{"Large", Large(), "54ec51a3bfca475fe8cf10ee2e40af7479682514d2385827bfcc5e84ed1adefa"},
		{"Small", Small(), "fddfc21b79ad220c0b954eea991a253109584e26e3a537909b6ca976cfe9a12a"},
	} {
		sum := sha256.Sum256(tc.data)
		assert.Equal(t, tc.sum, hex.EncodeToString(sum[:]), "%s: SHA-256", tc.name)
		assert.Equal(t, -1, bytes.IndexByte(tc.data, '\n'), "%s holds a newline", tc.name)
	}
}

func TestLarge(t *testing.T) {
	data := Large()
	data[0] = 'x' // the caller's copy
	require.Equal(t, []byte("{"), Large()[:1], "Large returned shared bytes")
	var c struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(Large(), &c))
	require.Len(t, c.Messages, LargeMessages)
	roles := map[string]int{}
	for _, m := range c.Messages {
		var role string
		json.Unmarshal(m["role"], &role)
		roles[role]++
	}
	want := map[string]int{"system": 1, "developer": 1, "user": 400, "assistant": 1199, "tool": 399}
	assert.Equal(t, want, roles, "roles")
	texts, err := Texts(Large(), nil)
	require.NoError(t, err)
	assert.Len(t, texts, 5*LargeMessages)
	assert.InDelta(t, 4_900_000, Size(texts), 100_000, "bytes of text, want about 4.9 MB")
}

func TestTexts(t *testing.T) {
	var parts [][]byte
	part := func(raw []byte) (string, error) {
		parts = append(parts, raw)
		return "DEV", nil
	}
	got, err := Texts(Small(), part)
	require.NoError(t, err)
	want := []string{"developer", "", "", "", "DEV", "user", "", "", "", "What is the weather in Tokyo?"}
	assert.Equal(t, want, got)
	require.Len(t, parts, 1, "part saw %q", parts)
	assert.True(t, bytes.HasPrefix(parts[0], []byte(`{"type":"developer_content",`)), "part saw %q", parts)
	got, _ = Texts(Small(), nil)
	assert.Equal(t, string(parts[0]), got[4], "nil part: want the part's JSON")

	// A bare array, content parts, unset fields.
	got, err = Texts([]byte(` [{"role":"assistant","channel":"final","recipient":"x","content_type":"json","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]`), nil)
	want = []string{"assistant", "final", "x", "json", "a", "b"}
	assert.NoError(t, err)
	assert.Equal(t, want, got)
	for _, bad := range []string{``, `{}`, `{"messages":1}`, `[{"role":"user","content":1}]`, `[{"role":"user","content":[1]}]`} {
		_, err := Texts([]byte(bad), nil)
		assert.Error(t, err, "Texts(%s)", bad)
	}
}
