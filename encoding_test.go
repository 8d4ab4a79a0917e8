package harmony

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/vocab/embedded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadEncoding(t *testing.T) {
	a := mustEncoding(t)
	b := mustEncoding(t)
	assert.Same(t, a, b, "LoadEncoding built the encoding twice")
	assert.Equal(t, "HarmonyGptOss", a.Name())
	assert.Equal(t, "o200k_harmony", a.TokenizerName())
	assert.Equal(t, 201089, a.VocabSize())
	_, err := LoadEncoding("o200k_base")
	if assert.ErrorIs(t, err, ErrUnknownEncoding, "unknown name") {
		assert.True(t, strings.HasPrefix(err.Error(), "harmony: "), "unknown name: %v", err)
	}
}

func TestNewEncodingFromReader(t *testing.T) {
	data, err := embedded.O200kBase()
	require.NoError(t, err)
	enc, err := NewEncoding(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, []Token{24912, 2375}, enc.EncodeOrdinary("hello world"))
	_, err = NewEncoding(strings.NewReader("aGk= 0\n"))
	assert.Error(t, err, "a one-rank file was accepted")
	_, err = NewEncoding(strings.NewReader("not base64 at all\n"))
	assert.Error(t, err, "a malformed file was accepted")
}

func TestSpecialTokens(t *testing.T) {
	for _, tt := range []struct {
		id   Token
		name string
	}{
		{199998, "<|startoftext|>"}, {199999, "<|endoftext|>"}, {200000, "<|reserved_200000|>"},
		{200002, "<|return|>"}, {200003, "<|constrain|>"}, {200005, "<|channel|>"}, {200006, "<|start|>"},
		{200007, "<|end|>"}, {200008, "<|message|>"}, {200012, "<|call|>"}, {200013, "<|reserved_200013|>"},
		{200014, "<|reserved_200014|>"}, {201088, "<|reserved_201088|>"},
	} {
		name, err := mustEncoding(t).Decode([]Token{tt.id})
		assert.NoError(t, err, "Decode(%d)", tt.id)
		assert.Equal(t, tt.name, name, "Decode(%d)", tt.id)
		id, ok := SpecialToken(tt.name)
		assert.True(t, ok, "SpecialToken(%q) reported not ok", tt.name)
		assert.Equal(t, tt.id, id, "SpecialToken(%q)", tt.name)
	}
	enc := mustEncoding(t)
	assert.False(t, enc.IsSpecial(199997), "IsSpecial(199997)")
	assert.False(t, enc.IsSpecial(201089), "IsSpecial(201089)")
	assert.True(t, enc.IsSpecial(200006), "IsSpecial(200006)")
	assert.Equal(t, 1091, len(specialTable), "special tokens")
	_, ok := SpecialToken("<|refusal|>")
	assert.False(t, ok, "<|refusal|> has no token in o200k_harmony")
	assert.Equal(t, []Token{200002, 200012, 200007}, enc.StopTokens(), "StopTokens")
	assert.Equal(t, []Token{200002, 200012}, enc.StopTokensForAssistantActions(), "StopTokensForAssistantActions")
}

func TestEncode(t *testing.T) {
	enc := mustEncoding(t)
	ordinary := enc.EncodeOrdinary("<|start|>")
	assert.NotEqual(t, []Token{TokenStart}, ordinary, "EncodeOrdinary made a special token")
	assert.GreaterOrEqual(t, len(ordinary), 2, "EncodeOrdinary(<|start|>) = %v", ordinary)
	got, err := enc.Encode("a<|start|>b<|end|>", "<|start|>", "<|end|>")
	require.NoError(t, err)
	want := append(append(append(enc.EncodeOrdinary("a"), TokenStart), enc.EncodeOrdinary("b")...), TokenEnd)
	assert.Equal(t, want, got)
	_, err = enc.Encode("ok <|<|end|> then", "<|start|>")
	var ee *EncodeError
	if assert.ErrorAs(t, err, &ee, "disallowed special") {
		assert.ErrorIs(t, err, ErrDisallowedSpecial)
		assert.Equal(t, 5, ee.Offset, "disallowed special: offset")
		assert.Equal(t, "<|end|>", ee.Special, "disallowed special")
	}
	_, err = enc.Encode("x", "<|nope|>")
	assert.ErrorIs(t, err, ErrUnknownSpecial, "unknown allowed special")
	assert.Equal(t, []Token{201088, TokenStart}, enc.EncodeWithSpecialTokens("<|reserved_201088|><|start|>"), "EncodeWithSpecialTokens")
	assert.Empty(t, enc.EncodeOrdinary(""), "empty text")
}

func TestDecode(t *testing.T) {
	enc := mustEncoding(t)
	text := "héllo 🌍 <|start|> 世界"
	toks := enc.EncodeOrdinary(text)
	s, err := enc.Decode(toks)
	assert.NoError(t, err)
	assert.Equal(t, text, s)
	s, err = enc.Decode([]Token{TokenStart, 200014})
	assert.NoError(t, err)
	assert.Equal(t, "<|start|><|reserved_200014|>", s, "specials decode to their text")
	var de *DecodeError
	_, err = enc.Decode([]Token{24912, 99999999})
	if assert.ErrorAs(t, err, &de, "unknown id") {
		assert.Equal(t, 1, de.Index, "unknown id: index")
		assert.ErrorIs(t, err, ErrUnknownToken, "unknown id")
	}
	// A character split across tokens: AppendBytes gives the bytes as they
	// are, Decode a U+FFFD for the part.
	raw, err := enc.AppendBytes([]byte("x"), []Token{9552})
	if assert.NoError(t, err, "AppendBytes of a partial character") {
		assert.False(t, utf8.Valid(raw), "AppendBytes of a partial character: % x", raw)
		assert.Equal(t, byte('x'), raw[0], "AppendBytes of a partial character: % x", raw)
	}
	s, err = enc.Decode([]Token{132990, 9552})
	assert.NoError(t, err, "invalid UTF-8")
	assert.Equal(t, "Chicken \uFFFD", s, "invalid UTF-8")
	b, err := enc.AppendBytes(nil, []Token{9552})
	require.NoError(t, err, "AppendBytes")
	require.NotEmpty(t, b, "AppendBytes")
	// Lossy decoding replaces each maximal invalid sequence once, as Python does.
	s, err = enc.Decode([]Token{9552, 24912})
	assert.NoError(t, err)
	assert.Equal(t, " \uFFFDhello", s)
}

func TestEncodingConcurrentUse(t *testing.T) {
	enc := mustEncoding(t)
	conv := NewConversation(NewSystemMessage(NewSystemContent()), NewTextMessage(RoleUser, "What is 2 + 2?"))
	want, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
				if !assert.NoError(t, err) || !assert.Equal(t, want, got, "concurrent render differs") {
					return
				}
				if _, err := enc.ParseCompletion(got[len(got)-2:], "", nil); !assert.Error(t, err, "a header cut short") {
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestEncodeInvalidUTF8AsReplacement(t *testing.T) {
	enc := mustEncoding(t)
	got := enc.EncodeOrdinary("a\xffb\xe2\x82c")
	want := enc.EncodeOrdinary("a\uFFFDb\uFFFD\uFFFDc")
	assert.Equal(t, want, got)
}

// TestEncodingCachesBounded renders many distinct long system prompts and
// tool schemas, as a caller that never repeats itself would, and checks that
// the encoding's caches stay within their budgets, counted and on the heap.
func TestEncodingCachesBounded(t *testing.T) {
	if sample.Sampled() {
		t.Skip("renders 48 MiB of prompts")
	}
	shared := mustEncoding(t)
	e := newEncoding(shared.encoder)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	filler := strings.Repeat("Answer in the tone of a patient teacher. ", 500) // 20 KB
	var dst []Token
	for i := range 2400 {
		schema := fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string","description":%q}}}`, i, filler[:4000])
		dev := NewDeveloperContent().WithInstructions(fmt.Sprintf("%d %s", i, filler)).
			WithFunctionTools(NewToolDescription("f", "", json.RawMessage(schema)))
		var err error
		dst, err = e.AppendConversationForCompletion(dst[:0], NewConversation(NewDeveloperMessage(dev)), RoleAssistant, &RenderOptions{NormalizeSchemas: true})
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, c := range []struct {
		name          string
		bytes, budget int64
	}{
		{"texts", e.texts.Bytes(), textCacheBytes},
		{"typeScripts", e.typeScripts.Bytes(), typeScriptCacheBytes},
		{"normalized", e.normalized.Bytes(), normalizeCacheBytes},
	} {
		assert.LessOrEqual(t, c.bytes, c.budget, c.name)
		assert.Greater(t, c.bytes, c.budget/2, "%s: the test should fill the cache", c.name)
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("texts %d, typeScripts %d, normalized %d bytes counted; heap held %d", e.texts.Bytes(), e.typeScripts.Bytes(), e.normalized.Bytes(), held)
	limit := int64(textCacheBytes+typeScriptCacheBytes+normalizeCacheBytes) * 3 / 2
	assert.Less(t, held, limit, "heap held by the caches: %d bytes", held)
	runtime.KeepAlive(e)
	runtime.KeepAlive(dst)
}

// TestAppendBytesKeepsSpareRoom checks that AppendBytes writes nothing in
// dst's capacity past what it appends, so that a caller may decode into
// parts of one buffer (AppendBytes into a buffer of its own may).
func TestAppendBytesKeepsSpareRoom(t *testing.T) {
	enc := mustEncoding(t)
	toks := enc.EncodeOrdinary("hi, 世界 ok")
	toks = append(toks, TokenStart)
	want, err := enc.AppendBytes(nil, toks)
	require.NoError(t, err)
	const rest = "0123456789abcdefghijklmnopqrstuvwxyz0123456789"
	buf := []byte(strings.Repeat("-", len(want)) + rest)
	out, err := enc.AppendBytes(buf[:0], toks)
	require.NoError(t, err)
	require.Equal(t, string(want), string(out))
	require.Equal(t, rest, string(buf[len(out):]), "the spare room after the appended bytes")
}
