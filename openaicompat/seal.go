package openaicompat

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// ReasoningSealer seals the model's reasoning into the encrypted_content of
// a Responses reasoning item, and opens it when a client sends the item
// back, so that a tool loop keeps its chain of thought without the server
// storing anything (a request with store:false and
// include:["reasoning.encrypted_content"], which is how stateless clients
// such as the Vercel AI SDK keep reasoning across calls).
//
// It uses AES-GCM from the standard library. The first key seals; every key
// opens, so keys can be rotated: add the new key first, and drop the old
// one once the reasoning it sealed no longer matters. A sealed text names
// its key by a 4-byte digest, never the key itself. A ReasoningSealer is
// safe for concurrent use.
type ReasoningSealer struct {
	keys []sealKey
}

type sealKey struct {
	id   [4]byte
	aead cipher.AEAD
}

// Sealed reasoning: base64 (standard, padded) of the version byte, the key
// id, the nonce, and the AES-GCM ciphertext with its tag. The version and
// key id are authenticated with a context string as additional data.
const (
	sealVersion = 1
	sealContext = "harmony-go reasoning v1"
	sealHeader  = 1 + 4
)

// ErrSealedReasoning: encrypted_content that was not sealed by this
// server's keys, or was changed since.
var ErrSealedReasoning = errors.New("encrypted reasoning cannot be opened")

// NewReasoningSealer returns a sealer with the given AES keys (16, 24 or 32
// bytes each; 32 is AES-256). The first seals; all open.
func NewReasoningSealer(keys ...[]byte) (*ReasoningSealer, error) {
	if len(keys) == 0 {
		return nil, errors.New("openaicompat: a reasoning sealer needs at least one key")
	}
	s := &ReasoningSealer{}
	for i, k := range keys {
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("openaicompat: reasoning key %d: %w", i, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("openaicompat: reasoning key %d: %w", i, err)
		}
		d := sha256.Sum256(append([]byte(sealContext+" key id\x00"), k...))
		sk := sealKey{aead: aead}
		copy(sk.id[:], d[:])
		for _, o := range s.keys {
			if o.id == sk.id {
				return nil, fmt.Errorf("openaicompat: reasoning key %d repeats an earlier key", i)
			}
		}
		s.keys = append(s.keys, sk)
	}
	return s, nil
}

// Seal returns the sealed form of text.
func (s *ReasoningSealer) Seal(text string) string {
	k := &s.keys[0]
	ns := k.aead.NonceSize()
	buf := make([]byte, sealHeader+ns, sealHeader+ns+len(text)+k.aead.Overhead())
	buf[0] = sealVersion
	copy(buf[1:sealHeader], k.id[:])
	rand.Read(buf[sealHeader : sealHeader+ns])
	out := k.aead.Seal(buf, buf[sealHeader:sealHeader+ns], []byte(text), sealAAD(buf[:sealHeader]))
	return base64.StdEncoding.EncodeToString(out)
}

// Open returns the text sealed in sealed, or an error wrapping
// [ErrSealedReasoning] when it is not the sealed form of a text under one
// of the sealer's keys.
func (s *ReasoningSealer) Open(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("%w: not base64", ErrSealedReasoning)
	}
	if len(raw) < sealHeader || raw[0] != sealVersion {
		return "", fmt.Errorf("%w: not sealed by this server", ErrSealedReasoning)
	}
	for i := range s.keys {
		k := &s.keys[i]
		if [4]byte(raw[1:sealHeader]) != k.id {
			continue
		}
		ns := k.aead.NonceSize()
		if len(raw) < sealHeader+ns+k.aead.Overhead() {
			return "", fmt.Errorf("%w: too short", ErrSealedReasoning)
		}
		text, err := k.aead.Open(nil, raw[sealHeader:sealHeader+ns], raw[sealHeader+ns:], sealAAD(raw[:sealHeader]))
		if err != nil {
			return "", fmt.Errorf("%w: it was changed", ErrSealedReasoning)
		}
		return string(text), nil
	}
	return "", fmt.Errorf("%w: sealed with a key this server does not hold", ErrSealedReasoning)
}

func sealAAD(header []byte) []byte {
	return append([]byte(sealContext), header...)
}
