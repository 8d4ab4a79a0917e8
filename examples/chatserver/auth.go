package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// apiKeys are the API keys of -api-keys, each of a tenant. A request
// authenticates with "Authorization: Bearer KEY", as OpenAI's clients send
// their key, and is served for the key's tenant: the Responses store keeps
// each tenant's responses apart (openaicompat.RequestOptions.Owner).
type apiKeys struct {
	keys    []apiKey
	tenants int // how many tenants have keys
}

type apiKey struct {
	digest [sha256.Size]byte // of the key; the key itself is not kept
	tenant string
}

// readAPIKeys reads a key file: one key and its tenant per line, separated
// by spaces or tabs ("KEY TENANT"). Blank lines and lines starting with #
// are skipped (secretLines). A tenant may have several keys (to rotate them); a key has
// one tenant. Errors name the line, never a key.
func readAPIKeys(data []byte) (*apiKeys, error) {
	k := &apiKeys{}
	seen := map[[sha256.Size]byte]int{} // the line of each key
	tenants := map[string]bool{}
	for n, line := range secretLines(data) {
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want KEY TENANT, two fields", n)
		}
		d := sha256.Sum256([]byte(f[0]))
		if m, ok := seen[d]; ok {
			return nil, fmt.Errorf("line %d: the key of line %d again", n, m)
		}
		seen[d] = n
		tenants[f[1]] = true
		k.keys = append(k.keys, apiKey{digest: d, tenant: f[1]})
	}
	if len(k.keys) == 0 {
		return nil, fmt.Errorf("no keys: want one KEY TENANT line or more")
	}
	k.tenants = len(tenants)
	return k, nil
}

// tenant returns the tenant of the key, and whether there is one. It
// compares the key's digest with every key's, in constant time, so that
// how long it takes says nothing of how much of a key was right.
func (k *apiKeys) tenant(key string) (string, bool) {
	d := sha256.Sum256([]byte(key))
	at := -1
	for i := range k.keys {
		at = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(d[:], k.keys[i].digest[:]), i, at)
	}
	if at < 0 {
		return "", false
	}
	return k.keys[at].tenant, true
}

// bearer returns the key of an Authorization header of the Bearer scheme
// (its name in any case), and whether it has one.
func bearer(header string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	key = strings.TrimSpace(key)
	return key, ok && strings.EqualFold(scheme, "Bearer") && key != ""
}

// tenantKey is the context key of the request's tenant.
type tenantKey struct{}

// tenantOf returns the tenant the request was authenticated for: "" when
// the server has no keys, the one tenant of every request.
func tenantOf(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}

// authenticate returns the request with its tenant in its context, or
// answers it with 401 and returns nil when the server has keys and the
// request has none of them, in OpenAI's words: "invalid_api_key".
func (s *server) authenticate(w *accessWriter, r *http.Request) *http.Request {
	if s.opts.Keys == nil {
		return r
	}
	key, ok := bearer(r.Header.Get("Authorization"))
	msg := "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	if ok {
		tenant, known := s.opts.Keys.tenant(key)
		if known {
			w.tenant = tenant
			return r.WithContext(context.WithValue(r.Context(), tenantKey{}, tenant))
		}
		msg = "Incorrect API key provided. Ask this server's operator for a key."
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="chatserver"`)
	s.writeJSON(w, http.StatusUnauthorized, errorBody(msg, "invalid_request_error", "", "invalid_api_key"))
	return nil
}
