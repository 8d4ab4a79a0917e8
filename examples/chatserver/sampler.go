package main

// The model of -sample: random tokens under the request's constraint mask.
// It proves the masks rather than imitating a model: whatever it draws, the
// completion must parse, call only the functions tool_choice allows, with
// arguments that match their parameters, and answer in the response format.
//
// Drawing uniformly from a mask writes text that never ends (the stop token
// is one id among 200,000), so the draw is biased: with probability
// 1/preferOdds, and always past softTokens, it draws an allowed special token
// (a stop token, a header) if there is one, else from a tier of the allowed
// tokens picked at random by weight: tokens made only of '"', '}' and ']'
// (which close JSON), tokens of the prompt (which spell the property names
// and enum values its tools declare, as a model copies them), one-byte
// tokens; else any. Every tier is a subset of the mask: the bias never
// draws a refused token.

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
)

const (
	softTokens = 256  // past this many tokens, always prefer the tiers
	hardTokens = 8192 // a completion that has not ended by now is an error
	preferOdds = 12   // before softTokens, prefer the tiers one draw in preferOdds
)

// tierWeights are the odds of the closers, the prompt's tokens and the
// one-byte tokens.
var tierWeights = [3]int{5, 3, 2}

// constraint builds the Envelope of the request being served.
type constraint func() (*constrain.Envelope, error)

// errNoEnd: the biased draw did not reach a stop token in time. The open
// objects' required keys are what it fails to find: it cannot know them.
var errNoEnd = errors.New("no end")

// sampler is the model of -sample SEED. Request n draws with a generator
// seeded by (SEED, n), so a run of requests is reproducible.
type sampler struct {
	enc     *harmony.Encoding
	seed    uint64
	hard    int             // tokens before giving up; 0: hardTokens
	closers []harmony.Token // tokens of '"', '}' and ']' only
	single  []harmony.Token // one-byte tokens
}

// newSampler returns the sampler of -sample seed.
func newSampler(enc *harmony.Encoding, seed uint64) *sampler {
	var closers, single []harmony.Token
	for id := harmony.Token(0); id < harmony.FirstSpecialToken; id++ {
		b, err := enc.AppendBytes(nil, []harmony.Token{id})
		if err != nil || len(b) == 0 {
			continue
		}
		if strings.Trim(string(b), `"}]`) == "" {
			closers = append(closers, id)
		}
		if len(b) == 1 {
			single = append(single, id)
		}
	}
	return &sampler{enc: enc, seed: seed, closers: closers, single: single}
}

// Complete samples a completion under the request's Envelope. A request
// whose schemas constrain cannot enforce gets an envelope of free text
// (analysis, then a final answer), as a server that samples without a mask
// for it would let the model write anything. The compilation of the
// envelope (mk) and the draw are the request's own work: the server runs
// them outside any lock it shares with other requests.
func (s *sampler) Complete(n uint64, _ harmony.Conversation, prompt []harmony.Token, mk constraint) ([]harmony.Token, error) {
	env, err := mk()
	var se *constrain.SchemaError
	if errors.As(err, &se) {
		env, err = constrain.NewEnvelope(s.enc, nil)
	}
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.seed, n))
	return s.sample(env, rng, prompt)
}

// sample draws tokens from env's masks until it ends, with a bias toward
// the ordinary tokens of prompt among others (see above).
func (s *sampler) sample(env *constrain.Envelope, rng *rand.Rand, prompt []harmony.Token) ([]harmony.Token, error) {
	seen := map[harmony.Token]bool{}
	var hints []harmony.Token
	for _, t := range prompt {
		if t < harmony.FirstSpecialToken && !seen[t] {
			seen[t] = true
			hints = append(hints, t)
		}
	}
	tiers := [][]harmony.Token{s.closers, hints, s.single}
	mask := make([]uint64, env.MaskWords())
	var out []harmony.Token
	for !env.CanEnd() {
		if hard := cmp.Or(s.hard, hardTokens); len(out) == hard {
			return out, fmt.Errorf("chatserver: -sample: %w after %d tokens", errNoEnd, hard)
		}
		env.FillMask(mask)
		tok, ok := draw(mask, rng, tiers, len(out) >= softTokens || rng.IntN(preferOdds) == 0)
		if !ok {
			return out, errors.New("chatserver: -sample: empty mask before the end")
		}
		if err := env.Accept(tok); err != nil {
			return out, err
		}
		out = append(out, tok)
	}
	return out, nil
}

// draw picks a token of mask: when prefer is set, an allowed special token,
// else one of a tier picked by tierWeights among those with allowed tokens;
// otherwise, or when no tier has any, uniformly.
func draw(mask []uint64, rng *rand.Rand, tiers [][]harmony.Token, prefer bool) (harmony.Token, bool) {
	if prefer {
		var specials []harmony.Token
		for id := harmony.FirstSpecialToken; int(id) < len(mask)*64; id++ {
			if has(mask, id) {
				specials = append(specials, id)
			}
		}
		if len(specials) > 0 {
			return specials[rng.IntN(len(specials))], true
		}
		var in [3][]harmony.Token
		total := 0
		for i, tier := range tiers {
			for _, id := range tier {
				if has(mask, id) {
					in[i] = append(in[i], id)
				}
			}
			if len(in[i]) > 0 {
				total += tierWeights[i]
			}
		}
		if total > 0 {
			k := rng.IntN(total)
			for i := range in {
				if len(in[i]) == 0 {
					continue
				}
				if k < tierWeights[i] {
					return in[i][rng.IntN(len(in[i]))], true
				}
				k -= tierWeights[i]
			}
		}
	}
	n := 0
	for _, w := range mask {
		n += bits.OnesCount64(w)
	}
	if n == 0 {
		return 0, false
	}
	k := rng.IntN(n)
	for i, w := range mask {
		c := bits.OnesCount64(w)
		if k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			w &= w - 1
		}
		return harmony.Token(i*64 + bits.TrailingZeros64(w)), true
	}
	return 0, false
}

func has(mask []uint64, id harmony.Token) bool { return mask[id>>6]&(1<<(id&63)) != 0 }
