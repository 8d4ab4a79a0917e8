package openaicompat

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
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
// its key by a 4-byte digest, never the key itself. It is bound to the id
// of its item and to its owner (the tenant, RequestOptions.Owner; "" for
// none), which are authenticated as AES-GCM's additional data: it opens
// only under the same item id and owner, so that sealed reasoning copied
// into another item, another response or another tenant's request is
// refused as if it had been changed. A ReasoningSealer is safe for
// concurrent use.
type ReasoningSealer struct {
	keys []sealKey
}

type sealKey struct {
	id   [4]byte
	aead cipher.AEAD
}

// Sealed reasoning: base64 (standard, padded) of the version byte, the key
// id, the nonce, and the AES-GCM ciphertext with its tag. The additional
// data is a context string, the version and key id, the owner's length
// (uvarint) and the owner, and the item id. Version 1 had no owner or item
// id in its additional data; this package no longer opens it.
const (
	sealVersion = 2
	sealContext = "harmony-go reasoning v2"
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

// Seal returns the sealed form of text, the reasoning of the item with the
// id itemID in a response to owner: [ReasoningSealer.Open] opens it with
// the same owner and item id only.
func (s *ReasoningSealer) Seal(owner, itemID, text string) string {
	k := &s.keys[0]
	ns := k.aead.NonceSize()
	buf := make([]byte, sealHeader+ns, sealHeader+ns+len(text)+k.aead.Overhead())
	buf[0] = sealVersion
	copy(buf[1:sealHeader], k.id[:])
	rand.Read(buf[sealHeader : sealHeader+ns])
	out := k.aead.Seal(buf, buf[sealHeader:sealHeader+ns], []byte(text), sealAAD(buf[:sealHeader], owner, itemID))
	return base64.StdEncoding.EncodeToString(out)
}

// Open returns the text sealed in sealed, or an error wrapping
// [ErrSealedReasoning] when it is not the sealed form of a text under one
// of the sealer's keys for this owner and item id. The error does not say
// which of the three differs.
func (s *ReasoningSealer) Open(owner, itemID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("%w: not base64", ErrSealedReasoning)
	}
	if len(raw) > 0 && raw[0] == 1 {
		return "", fmt.Errorf("%w: sealed in an older form, which this server no longer opens", ErrSealedReasoning)
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
		text, err := k.aead.Open(nil, raw[sealHeader:sealHeader+ns], raw[sealHeader+ns:], sealAAD(raw[:sealHeader], owner, itemID))
		if err != nil {
			return "", fmt.Errorf("%w: it was changed, or sealed for another item", ErrSealedReasoning)
		}
		return string(text), nil
	}
	return "", fmt.Errorf("%w: sealed with a key this server does not hold", ErrSealedReasoning)
}

// sealAAD is the additional data of a seal: the context, the header, the
// owner (its length first, so that no owner and item id run into another
// pair) and the item id.
func sealAAD(header []byte, owner, itemID string) []byte {
	ad := make([]byte, 0, len(sealContext)+len(header)+binary.MaxVarintLen64+len(owner)+len(itemID))
	ad = append(append(ad, sealContext...), header...)
	ad = binary.AppendUvarint(ad, uint64(len(owner)))
	return append(append(ad, owner...), itemID...)
}
