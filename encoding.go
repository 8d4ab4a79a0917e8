package harmony

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/go-harmony/harmony/internal/cache"
	"github.com/go-harmony/harmony/internal/o200k"
	"github.com/go-harmony/harmony/internal/utf8x"
	"github.com/go-harmony/harmony/internal/vocab"
)

// Token is a token id of the o200k_harmony encoding.
type Token uint32

// The number of ids the encoding knows: ranks 0..199997 and the specials.
const vocabSize = int(LastSpecialToken) + 1

// EncodingName names a harmony encoding.
type EncodingName string

// HarmonyGptOss is the encoding of the gpt-oss models: o200k_harmony.
const HarmonyGptOss EncodingName = "HarmonyGptOss"

// Encoding renders and parses harmony messages with the o200k_harmony
// tokenizer. It is immutable and safe for concurrent use; build it once with
// [LoadEncoding] and share it. It owns bounded caches of what servers render
// on every request (at most 48 MiB in all), which never change a result.
type Encoding struct {
	name    EncodingName
	encoder *o200k.Engine // ordinary text, and the bytes of each rank

	// Bit per rank: its bytes are complete UTF-8 on their own. Built on the
	// first parse, not at load: rendering never needs it.
	wholeOnce sync.Once
	whole     []uint64
	// Bit per rank: recovery may hold text back after it (mayHoldRanks).
	// Built on the first recovering parse.
	holdOnce sync.Once
	mayHold  []uint64

	// Caches of what a server renders again on every request: the tokens of
	// long system and developer texts, the TypeScript of tool schemas,
	// normalized schemas, and the tokens of the long texts of the messages
	// that budgeted renders keep (a conversation comes back whole with each
	// new turn). Each is deterministic, so caching cannot change output,
	// and each is bounded by the memory it holds (16, 8, 8 and 16 MiB).
	texts       *cache.Cache[[]Token]
	typeScripts *cache.Cache[string]
	normalized  *cache.Cache[normalized]
	history     *cache.Cache[[]Token]

	// Buffers for the text of system and developer messages, which is built
	// on every render to be looked up in texts.
	textBufs sync.Pool // of *[]byte
}

// minCachedText is the shortest system or developer text whose tokens are
// cached.
const minCachedText = 128

// The budgets of an Encoding's caches, in bytes held (see internal/cache):
// tokens of system and developer texts, TypeScript of tool schemas,
// normalized schemas, and tokens of the texts of budgeted conversations.
const (
	textCacheBytes       = 16 << 20
	typeScriptCacheBytes = 8 << 20
	normalizeCacheBytes  = 8 << 20
	historyCacheBytes    = 16 << 20
)

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
		defaultEnc = newEncoding(eng)
	})
	return defaultEnc, defaultErr
}

// newEncoding returns the HarmonyGptOss encoding on eng, with empty caches.
func newEncoding(eng *o200k.Engine) *Encoding {
	return &Encoding{
		name:        HarmonyGptOss,
		encoder:     eng,
		texts:       cache.New[[]Token](textCacheBytes),
		typeScripts: cache.New[string](typeScriptCacheBytes),
		normalized:  cache.New[normalized](normalizeCacheBytes),
		history:     cache.New[[]Token](historyCacheBytes),
	}
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
	if isSpecial(t) {
		return specialBytes[t-FirstSpecialToken], true
	}
	return nil, false
}

// appendTokenBytes appends the bytes of t to dst without allocating.
func (e *Encoding) appendTokenBytes(dst []byte, t Token) ([]byte, bool) {
	b, ok := e.tokenBytes(t)
	return append(dst, b...), ok
}

// IsSpecial reports whether t is a special token of the encoding (including
// the reserved ones). It is false for ids the encoding does not know.
func (e *Encoding) IsSpecial(t Token) bool { return isSpecial(t) }

// StopTokens returns <|return|>, <|call|> and <|end|>: the tokens that end a
// sampled message.
func (e *Encoding) StopTokens() []Token { return []Token{TokenReturn, TokenCall, TokenEnd} }

// StopTokensForAssistantActions returns <|return|> and <|call|>: the tokens
// that end an assistant's turn, the stop tokens of inference.
func (e *Encoding) StopTokensForAssistantActions() []Token { return []Token{TokenReturn, TokenCall} }

// AppendBytes appends the bytes of tokens to dst and returns the extended
// slice; a special token contributes its text. An unknown id is a
// [*DecodeError] wrapping [ErrUnknownToken]. The bytes need not be valid
// UTF-8 (a character may be split across tokens): check with utf8.Valid
// where that matters, or use [Encoding.Decode]. It writes nothing in dst's
// capacity past the bytes it appends; AppendBytes(nil, tokens) is the
// fastest way to the bytes.
func (e *Encoding) AppendBytes(dst []byte, tokens []Token) ([]byte, error) {
	if cap(dst)-len(dst) < len(tokens)*4 {
		// A buffer of its own, whose spare room nobody else reads.
		grown := make([]byte, len(dst), len(dst)+len(tokens)*4)
		copy(grown, dst)
		return e.appendBytes(grown, tokens, true)
	}
	return e.appendBytes(dst, tokens, false)
}

// appendBytes is AppendBytes; with spill it copies ranks with
// o200k.Engine.AppendTokenBytes, which may write past the bytes it appends
// within dst's capacity: only for a buffer whose spare room nobody else
// reads.
func (e *Encoding) appendBytes(dst []byte, tokens []Token, spill bool) ([]byte, error) {
	for i, t := range tokens {
		if spill {
			if d, ok := e.encoder.AppendTokenBytes(dst, uint32(t)); ok {
				dst = d
				continue
			}
		}
		var ok bool
		if dst, ok = e.appendTokenBytes(dst, t); !ok {
			return dst, &DecodeError{Index: i, Token: t, Err: ErrUnknownToken}
		}
	}
	return dst, nil
}

// Decode returns the text of tokens, replacing each invalid UTF-8 sequence by
// U+FFFD as Python's errors="replace" does (lossy). Only an unknown id is an
// error. For the bytes as they are, use [Encoding.AppendBytes].
func (e *Encoding) Decode(tokens []Token) (string, error) {
	b, err := e.AppendBytes(nil, tokens)
	if err != nil {
		return "", err
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	return string(utf8x.AppendLossy(make([]byte, 0, len(b)+8), b)), nil
}
