package harmony

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/utf8x"
	"github.com/go-harmony/harmony/internal/vocab"
	"github.com/pkoukk/tiktoken-go"
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
	ranks   [][]byte // bytes of each o200k_base rank, indexed by rank
	encoder textEncoder
}

// textEncoder turns ordinary text into o200k_base ranks. It is the one piece
// of the tokenizer that sits behind an interface, so that the engine can be
// swapped without touching the format code.
type textEncoder interface {
	appendOrdinary(dst []Token, text string) []Token
}

var (
	defaultOnce sync.Once
	defaultEnc  *Encoding
	defaultErr  error
)

// LoadEncoding returns the named encoding. The vocabulary is embedded in the
// binary and checked against its SHA-256: nothing is read from disk or the
// network. The first call builds the encoding; later calls return the same
// shared *Encoding. An unknown name is an error wrapping [ErrUnknownEncoding].
func LoadEncoding(name EncodingName) (*Encoding, error) {
	if name != HarmonyGptOss {
		return nil, fmt.Errorf("harmony: %w %q", ErrUnknownEncoding, name)
	}
	defaultOnce.Do(func() {
		data, err := vocab.Embedded()
		if err != nil {
			defaultErr = fmt.Errorf("harmony: %w", err)
			return
		}
		defaultEnc, defaultErr = newEncoding(bytes.NewReader(data))
	})
	return defaultEnc, defaultErr
}

// NewEncoding builds the HarmonyGptOss encoding from an o200k_base rank file in
// tiktoken's format ("base64 rank" per line), for callers who ship their own
// copy. Its hash is not checked; it must hold exactly the 199,998 ranks of
// o200k_base, since the special tokens follow them.
func NewEncoding(ranks io.Reader) (*Encoding, error) {
	return newEncoding(ranks)
}

func newEncoding(r io.Reader) (*Encoding, error) {
	ranks, err := vocab.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("harmony: %w", err)
	}
	if len(ranks) != vocab.O200kBaseRanks {
		return nil, fmt.Errorf("harmony: rank file has %d ranks, want %d", len(ranks), vocab.O200kBaseRanks)
	}
	enc, err := newTiktokenEngine(ranks)
	if err != nil {
		return nil, fmt.Errorf("harmony: %w", err)
	}
	return &Encoding{name: HarmonyGptOss, ranks: ranks, encoder: enc}, nil
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
	return e.encoder.appendOrdinary(nil, text)
}

// AppendOrdinary appends the tokens of text, encoded as by [Encoding.EncodeOrdinary], to dst.
func (e *Encoding) AppendOrdinary(dst []Token, text string) []Token {
	return e.encoder.appendOrdinary(dst, text)
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
			return e.encoder.appendOrdinary(dst, text[start:]), nil
		}
		if !allowed(t) {
			return nil, &EncodeError{Offset: i, Special: text[i:j], Err: ErrDisallowedSpecial}
		}
		dst = e.encoder.appendOrdinary(dst, text[start:i])
		dst = append(dst, t)
		start = j
	}
}

// tokenBytes returns the bytes of t: its rank's bytes, or a special token's
// text. ok is false for an id the encoding does not know.
func (e *Encoding) tokenBytes(t Token) (b []byte, ok bool) {
	if int(t) < len(e.ranks) {
		return e.ranks[t], true
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

// tiktokenEngine encodes ordinary text with github.com/pkoukk/tiktoken-go
// configured with the o200k pattern and ranks: correct, and the oracle the
// project's own engine is tested against, but not fast.
type tiktokenEngine struct {
	tk *tiktoken.Tiktoken
}

// o200kPattern is the pre-tokenization pattern of o200k_base and
// o200k_harmony.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+` +
	`|\s+(?!\S)` +
	`|\s+`

func newTiktokenEngine(ranks [][]byte) (*tiktokenEngine, error) {
	m := make(map[string]int, len(ranks))
	for i, b := range ranks {
		m[string(b)] = i
	}
	bpe, err := tiktoken.NewCoreBPE(m, map[string]int{}, o200kPattern)
	if err != nil {
		return nil, err
	}
	return &tiktokenEngine{tk: tiktoken.NewTiktoken(bpe, nil, nil)}, nil
}

func (t *tiktokenEngine) appendOrdinary(dst []Token, text string) []Token {
	if text == "" {
		return dst
	}
	for _, id := range t.tk.EncodeOrdinary(text) {
		dst = append(dst, Token(id))
	}
	return dst
}
