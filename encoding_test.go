package harmony

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	if a != b {
		t.Error("LoadEncoding built the encoding twice")
	}
	if a.Name() != "HarmonyGptOss" || a.TokenizerName() != "o200k_harmony" || a.VocabSize() != 201089 {
		t.Errorf("name %q tokenizer %q vocab %d", a.Name(), a.TokenizerName(), a.VocabSize())
	}
	if _, err := LoadEncoding("o200k_base"); !errors.Is(err, ErrUnknownEncoding) || !strings.HasPrefix(err.Error(), "harmony: ") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestNewEncodingFromReader(t *testing.T) {
	data, err := embedded.O200kBase()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoding(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := enc.EncodeOrdinary("hello world"); !reflect.DeepEqual(got, []Token{24912, 2375}) {
		t.Errorf("got %v", got)
	}
	if _, err := NewEncoding(strings.NewReader("aGk= 0\n")); err == nil {
		t.Error("a one-rank file was accepted")
	}
	if _, err := NewEncoding(strings.NewReader("not base64 at all\n")); err == nil {
		t.Error("a malformed file was accepted")
	}
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
		if name, err := mustEncoding(t).Decode([]Token{tt.id}); err != nil || name != tt.name {
			t.Errorf("Decode(%d) = %q, %v", tt.id, name, err)
		}
		if id, ok := SpecialToken(tt.name); !ok || id != tt.id {
			t.Errorf("SpecialToken(%q) = %d, %v", tt.name, id, ok)
		}
	}
	if enc := mustEncoding(t); enc.IsSpecial(199997) || enc.IsSpecial(201089) || !enc.IsSpecial(200006) {
		t.Error("IsSpecial bounds")
	}
	if n := len(specialTable); n != 1091 {
		t.Errorf("%d special tokens", n)
	}
	if _, ok := SpecialToken("<|refusal|>"); ok {
		t.Error("<|refusal|> has no token in o200k_harmony")
	}
	enc := mustEncoding(t)
	if got := enc.StopTokens(); !reflect.DeepEqual(got, []Token{200002, 200012, 200007}) {
		t.Errorf("StopTokens %v", got)
	}
	if got := enc.StopTokensForAssistantActions(); !reflect.DeepEqual(got, []Token{200002, 200012}) {
		t.Errorf("StopTokensForAssistantActions %v", got)
	}
}

func TestEncode(t *testing.T) {
	enc := mustEncoding(t)
	if got := enc.EncodeOrdinary("<|start|>"); reflect.DeepEqual(got, []Token{TokenStart}) || len(got) < 2 {
		t.Errorf("EncodeOrdinary made a special token: %v", got)
	}
	got, err := enc.Encode("a<|start|>b<|end|>", "<|start|>", "<|end|>")
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append(enc.EncodeOrdinary("a"), TokenStart), enc.EncodeOrdinary("b")...), TokenEnd)
	assert.Equal(t, want, got)
	_, err = enc.Encode("ok <|<|end|> then", "<|start|>")
	var ee *EncodeError
	if !errors.As(err, &ee) || !errors.Is(err, ErrDisallowedSpecial) || ee.Offset != 5 || ee.Special != "<|end|>" {
		t.Errorf("disallowed special: %v", err)
	}
	if _, err := enc.Encode("x", "<|nope|>"); !errors.Is(err, ErrUnknownSpecial) {
		t.Errorf("unknown allowed special: %v", err)
	}
	if got := enc.EncodeWithSpecialTokens("<|reserved_201088|><|start|>"); !reflect.DeepEqual(got, []Token{201088, TokenStart}) {
		t.Errorf("EncodeWithSpecialTokens = %v", got)
	}
	if got := enc.EncodeOrdinary(""); len(got) != 0 {
		t.Errorf("empty text: %v", got)
	}
}

func TestDecode(t *testing.T) {
	enc := mustEncoding(t)
	text := "héllo 🌍 <|start|> 世界"
	toks := enc.EncodeOrdinary(text)
	if s, err := enc.Decode(toks); err != nil || s != text {
		t.Errorf("Decode = %q, %v", s, err)
	}
	if s, err := enc.Decode([]Token{TokenStart, 200014}); err != nil || s != "<|start|><|reserved_200014|>" {
		t.Errorf("specials decode to their text: %q, %v", s, err)
	}
	var de *DecodeError
	if _, err := enc.Decode([]Token{24912, 99999999}); !errors.As(err, &de) || de.Index != 1 || !errors.Is(err, ErrUnknownToken) {
		t.Errorf("unknown id: %v", err)
	}
	// A character split across tokens: AppendBytes gives the bytes as they
	// are, Decode a U+FFFD for the part.
	if raw, err := enc.AppendBytes([]byte("x"), []Token{9552}); err != nil || utf8.Valid(raw) || raw[0] != 'x' {
		t.Errorf("AppendBytes of a partial character: % x, %v", raw, err)
	}
	if s, err := enc.Decode([]Token{132990, 9552}); err != nil || s != "Chicken \uFFFD" {
		t.Errorf("invalid UTF-8: %q, %v", s, err)
	}
	b, err := enc.AppendBytes(nil, []Token{9552})
	if err != nil || len(b) == 0 {
		t.Fatalf("AppendBytes: %v", err)
	}
	// Lossy decoding replaces each maximal invalid sequence once, as Python does.
	if s, err := enc.Decode([]Token{9552, 24912}); err != nil || s != " \uFFFDhello" {
		t.Errorf("Decode = %q, %v", s, err)
	}
}

func TestEncodingConcurrentUse(t *testing.T) {
	enc := mustEncoding(t)
	conv := NewConversation(NewSystemMessage(NewSystemContent()), NewTextMessage(RoleUser, "What is 2 + 2?"))
	want, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent render differs: %v", err)
					return
				}
				if _, err := enc.ParseCompletion(got[len(got)-2:], "", nil); err == nil {
					t.Errorf("want an error for a header cut short")
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
