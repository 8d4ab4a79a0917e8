package harmony

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"unsafe"

	"github.com/go-harmony/harmony/internal/o200k"
	"github.com/go-harmony/harmony/internal/utf8x"
	"github.com/go-harmony/harmony/internal/vocab"
)

// EncodingName names a harmony encoding.
type EncodingName string

// HarmonyGptOss is the encoding of the gpt-oss models: o200k_harmony.
const HarmonyGptOss EncodingName = "HarmonyGptOss"

// Encoding renders and parses harmony messages with the o200k_harmony
// tokenizer. It is immutable and safe for concurrent use; build it once with
// [LoadEncoding] and share it.
type Encoding struct {
	name    EncodingName
	encoder *o200k.Engine // ordinary text, and the bytes of each rank

	// Bit per rank: its bytes are complete UTF-8 on their own. Built on the
	// first parse, not at load: rendering never needs it.
	wholeOnce sync.Once
	whole     []uint64

	// Tokens of long system and developer texts, which a server renders
	// again on every request. Deterministic, so caching cannot change output.
	texts cache[[]Token]
}

// minCachedText is the shortest system or developer text whose tokens are
// cached.
const minCachedText = 128

// cache is a small concurrency-safe map from long strings to values, bounded
// by a byte budget: when it would grow past it, it starts over. Servers render
// a handful of distinct system prompts and tool sets; the bound only matters
// for a caller that sends a new one every time, who then pays what it would
// have paid without a cache.
type cache[V any] struct {
	mu     sync.RWMutex
	m      map[string]V
	bytes  int
	budget int
}

func (c *cache[V]) get(key string) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[key]
	c.mu.RUnlock()
	return v, ok
}

func (c *cache[V]) put(key string, v V, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.budget == 0 {
		c.budget = 16 << 20
	}
	if size > c.budget/16 {
		return
	}
	if c.m == nil || c.bytes+size > c.budget {
		c.m, c.bytes = make(map[string]V), 0
	}
	if _, ok := c.m[key]; !ok {
		c.m[key] = v
		c.bytes += size
	}
}

// appendCachedText appends the tokens of a system or developer text, from the
// cache when the same text was rendered before.
func (e *Encoding) appendCachedText(dst []Token, text string) []Token {
	if len(text) < minCachedText {
		return e.appendOrdinary(dst, text)
	}
	if toks, ok := e.texts.get(text); ok {
		return append(dst, toks...)
	}
	n := len(dst)
	dst = e.appendOrdinary(dst, text)
	toks := append([]Token(nil), dst[n:]...)
	e.texts.put(text, toks, len(text)+4*len(toks))
	return dst
}

var (
	defaultOnce sync.Once
	defaultEnc  *Encoding
	defaultErr  error
)

// LoadEncoding returns the named encoding. The vocabulary is a precomputed
// table embedded in the binary and checked against its SHA-256: nothing is
// read from disk or the network. The first call maps the table (a few
// milliseconds); later calls return the same shared *Encoding. An unknown
// name is an error wrapping [ErrUnknownEncoding].
func LoadEncoding(name EncodingName) (*Encoding, error) {
	if name != HarmonyGptOss {
		return nil, fmt.Errorf("harmony: %w %q", ErrUnknownEncoding, name)
	}
	defaultOnce.Do(func() {
		eng, err := o200k.Load()
		if err != nil {
			defaultErr = fmt.Errorf("harmony: %w", err)
			return
		}
		defaultEnc = &Encoding{name: HarmonyGptOss, encoder: eng}
	})
	return defaultEnc, defaultErr
}

// wholeUTF8Ranks marks the ranks whose bytes are valid UTF-8 by themselves,
// so that the parsers can move them into content without checking them again.
func wholeUTF8Ranks(eng *o200k.Engine) []uint64 {
	bits := make([]uint64, (eng.NumRanks()+63)/64)
	for id := range eng.NumRanks() {
		if utf8.Valid(eng.TokenBytes(uint32(id))) {
			bits[id/64] |= 1 << (id % 64)
		}
	}
	return bits
}

// wholeUTF8 returns the bitset of ranks whose bytes are complete UTF-8.
func (e *Encoding) wholeUTF8() []uint64 {
	e.wholeOnce.Do(func() { e.whole = wholeUTF8Ranks(e.encoder) })
	return e.whole
}

// isWholeUTF8 reports whether t is a rank whose bytes are complete UTF-8, in
// whole (from wholeUTF8).
func isWholeUTF8(whole []uint64, t Token) bool {
	i := int(t) / 64
	return i < len(whole) && whole[i]&(1<<(t%64)) != 0
}

// NewEncoding builds the HarmonyGptOss encoding after checking that ranks, an
// o200k_base rank file in tiktoken's format ("base64 rank" per line), holds
// exactly the vocabulary the embedded table was built from — for callers who
// ship and audit their own copy. Any other vocabulary is an error: the special
// tokens of o200k_harmony follow o200k_base's 199,998 ranks.
func NewEncoding(ranks io.Reader) (*Encoding, error) {
	parsed, err := vocab.Parse(ranks)
	if err != nil {
		return nil, fmt.Errorf("harmony: %w", err)
	}
	enc, err := LoadEncoding(HarmonyGptOss)
	if err != nil {
		return nil, err
	}
	if len(parsed) != enc.encoder.NumRanks() {
		return nil, fmt.Errorf("harmony: rank file has %d ranks, want %d", len(parsed), enc.encoder.NumRanks())
	}
	for i, b := range parsed {
		if !bytes.Equal(b, enc.encoder.TokenBytes(uint32(i))) {
			return nil, fmt.Errorf("harmony: rank file differs from o200k_base at rank %d", i)
		}
	}
	return enc, nil
}

// Name returns the encoding's name, "HarmonyGptOss".
func (e *Encoding) Name() string { return string(e.name) }

// TokenizerName returns the tokenizer's name, "o200k_harmony".
func (e *Encoding) TokenizerName() string { return "o200k_harmony" }

// VocabSize returns the number of token ids the encoding knows (201,089): ids
// from 0 to [LastSpecialToken].
func (e *Encoding) VocabSize() int { return vocabSize }

// EncodeOrdinary encodes text as ordinary text: the text of a special token
// becomes the ordinary tokens of its characters. Invalid UTF-8 bytes in text
// are encoded as U+FFFD, as Python does when it encodes such a string with
// errors="replace".
func (e *Encoding) EncodeOrdinary(text string) []Token {
	return e.appendOrdinary(nil, text)
}

// AppendOrdinary appends the tokens of text, encoded as by [Encoding.EncodeOrdinary], to dst.
func (e *Encoding) AppendOrdinary(dst []Token, text string) []Token {
	return e.appendOrdinary(dst, text)
}

// appendOrdinary appends the ordinary tokens of text. Token and uint32 have
// the same layout, so the engine appends into dst directly.
func (e *Encoding) appendOrdinary(dst []Token, text string) []Token {
	if text == "" {
		return dst
	}
	ids := e.encoder.AppendEncode(unsafe.Slice((*uint32)(unsafe.SliceData(dst)), cap(dst))[:len(dst)], text)
	return unsafe.Slice((*Token)(unsafe.SliceData(ids)), cap(ids))[:len(ids)]
}

// Encode encodes text, turning the text of each special token listed in
// allowedSpecial into that special token. Text that holds any other special
// token is an [*EncodeError] wrapping [ErrDisallowedSpecial] (use
// [Encoding.EncodeOrdinary] to encode such text as ordinary text); a name in
// allowedSpecial that is no special token wraps [ErrUnknownSpecial].
func (e *Encoding) Encode(text string, allowedSpecial ...string) ([]Token, error) {
	var allowed map[Token]bool
	if len(allowedSpecial) > 0 {
		allowed = make(map[Token]bool, len(allowedSpecial))
		for _, name := range allowedSpecial {
			t, ok := SpecialToken(name)
			if !ok {
				return nil, &EncodeError{Offset: -1, Special: name, Err: ErrUnknownSpecial}
			}
			allowed[t] = true
		}
	}
	return e.encodeSpecials(nil, text, func(t Token) bool { return allowed[t] })
}

// EncodeWithSpecialTokens encodes text with the text of every special token
// turned into that token. Use it only on trusted text, never on what users or
// models wrote.
func (e *Encoding) EncodeWithSpecialTokens(text string) []Token {
	out, _ := e.encodeSpecials(nil, text, func(Token) bool { return true })
	return out
}

func (e *Encoding) encodeSpecials(dst []Token, text string, allowed func(Token) bool) ([]Token, error) {
	start := 0
	for {
		i, j, t := findSpecial(text, start)
		if i < 0 {
			return e.appendOrdinary(dst, text[start:]), nil
		}
		if !allowed(t) {
			return nil, &EncodeError{Offset: i, Special: text[i:j], Err: ErrDisallowedSpecial}
		}
		dst = e.appendOrdinary(dst, text[start:i])
		dst = append(dst, t)
		start = j
	}
}

// tokenBytes returns the bytes of t: its rank's bytes, or a special token's
// text. ok is false for an id the encoding does not know.
func (e *Encoding) tokenBytes(t Token) (b []byte, ok bool) {
	if b := e.encoder.TokenBytes(uint32(t)); b != nil {
		return b, true
	}
	if IsSpecial(t) {
		return specialBytes[t-FirstSpecialToken], true
	}
	return nil, false
}

// appendTokenBytes appends the bytes of t to dst without allocating.
func (e *Encoding) appendTokenBytes(dst []byte, t Token) ([]byte, bool) {
	b, ok := e.tokenBytes(t)
	return append(dst, b...), ok
}

// IsSpecial reports whether t is a special token of the encoding.
func (e *Encoding) IsSpecial(t Token) bool { return IsSpecial(t) }

// StopTokens returns <|return|>, <|call|> and <|end|>: the tokens that end a
// sampled message.
func (e *Encoding) StopTokens() []Token { return StopTokens() }

// StopTokensForAssistantActions returns <|return|> and <|call|>: the tokens
// that end an assistant's turn.
func (e *Encoding) StopTokensForAssistantActions() []Token { return StopTokensForAssistantActions() }

// AppendBytes appends the bytes of tokens to dst; a special token contributes
// its text. An unknown id is a [*DecodeError] wrapping [ErrUnknownToken].
func (e *Encoding) AppendBytes(dst []byte, tokens []Token) ([]byte, error) {
	for i, t := range tokens {
		var ok bool
		if dst, ok = e.appendTokenBytes(dst, t); !ok {
			return dst, &DecodeError{Index: i, Token: t, Err: ErrUnknownToken}
		}
	}
	return dst, nil
}

// DecodeBytes returns the bytes of tokens, as [Encoding.AppendBytes] does.
func (e *Encoding) DecodeBytes(tokens []Token) ([]byte, error) {
	return e.AppendBytes(make([]byte, 0, len(tokens)*4), tokens)
}

// DecodeUTF8 returns the text of tokens, which must be valid UTF-8 (an
// [*DecodeError] wrapping [ErrInvalidUTF8] otherwise, with the byte offset).
func (e *Encoding) DecodeUTF8(tokens []Token) (string, error) {
	b, err := e.DecodeBytes(tokens)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		valid, _ := utf8x.Check(b)
		return "", &DecodeError{Index: -1, Offset: valid, Err: ErrInvalidUTF8}
	}
	return string(b), nil
}

// Decode returns the text of tokens, replacing each invalid UTF-8 sequence by
// U+FFFD as Python's errors="replace" does (lossy). Only an unknown id is an
// error.
func (e *Encoding) Decode(tokens []Token) (string, error) {
	b, err := e.DecodeBytes(tokens)
	if err != nil {
		return "", err
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	return string(utf8x.AppendLossy(make([]byte, 0, len(b)+8), b)), nil
}
