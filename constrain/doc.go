// Package constrain turns a JSON Schema into token masks over the
// o200k_harmony vocabulary, for constrained sampling of gpt-oss tool
// arguments and structured output.
//
//	g, err := constrain.CompileJSONSchema(enc, schema, nil) // *Grammar: immutable, shareable
//	m := g.NewMatcher()                                     // one per sequence
//	mask := make([]uint64, g.MaskWords())
//	for !done {
//		m.FillMask(mask)     // bit t set: token t may come next
//		tok := sample(mask)  // with <|call|> allowed only when m.CanEnd()
//		err = m.Accept(tok)  // a refused token is an error; m is unchanged
//	}
//
// # Exactness
//
// A token is allowed if and only if its bytes extend the text so far to a
// prefix of some valid instance: every valid instance, however it is
// tokenized, is accepted token by token, and no invalid one can be
// completed (a live matcher always has a way to finish). Special tokens are
// never allowed inside JSON; the caller ends the value, consulting CanEnd.
// "Valid instance" is the schema's language with these deliberate
// narrowings, each a choice of one spelling among equivalent ones, never a
// loosening:
//
//   - Whitespace between tokens comes in runs of at most
//     Options.MaxWhitespace bytes (DefaultMaxWhitespace, 64), or none with
//     Options.Compact: unbounded whitespace is how constrained JSON loops.
//   - Object keys are not repeated (RFC 8259 says they SHOULD be unique):
//     a property the schema names may appear once.
//   - A number of type integer is written without fraction or exponent; a
//     number with a minimum or maximum other than 0 is written without
//     exponent; an enum or const number is written as an integer or a plain
//     decimal (1, 1.0, 1.50), not with an exponent.
//   - A number is below 10^308 in magnitude, a narrowing of values as well
//     as spellings: the JSON parser of this project (serde_json's
//     algorithm, which the validator uses) refuses a number that overflows
//     a float64, and some just below (1.7976931348623158e308). With a
//     positive exponent, the integer part has at most 20 digits (0 with an
//     exponent of at most 308).
//   - A string never holds a lone surrogate escape (\ud800 alone): it is not
//     a Unicode character. Escapes are otherwise free (RFC 8259 §7): string
//     constraints apply to the decoded text, so "\u0061" is "a".
//   - Formats are enforced with the definitions in formats.go (leap seconds
//     are not written).
//
// # Covered
//
// type (and type lists), enum, const (any JSON value), properties,
// required, additionalProperties (false, true, a schema), minProperties (0
// or 1 with additional properties, any value without), maxProperties,
// items, prefixItems, items as an array with additionalItems (drafts 4-7),
// minItems, maxItems, minLength, maxLength (code points), pattern (Go's
// regexp syntax, as the validator package reads it, unanchored as JSON
// Schema says, compiled from regexp/syntax to a byte DFA), format (date,
// time, date-time, uuid, ipv4; format names no validator knows are
// annotations), minimum, maximum, exclusiveMinimum, exclusiveMaximum (both
// forms, draft 4 booleans included; decimal bounds as digit automata),
// multipleOf (integers, for integers), allOf (merged exactly), anyOf (each
// branch followed), oneOf (as anyOf when the branches are provably disjoint:
// different types, disjoint strings or numbers, or a required property with
// disjoint values), $ref to "#" JSON pointers including recursion, $defs and
// definitions, "$ref" beside other keywords (2019-09 and later; ignored
// siblings in drafts 4-7 as they say), and every annotation.
//
// # Refused
//
// Anything else that constrains values is a *SchemaError naming its JSON
// pointer and wrapping ErrUnsupported: not, if/then/else, dependencies,
// dependentRequired, dependentSchemas, patternProperties (unless empty),
// propertyNames (unless only type string), contains, unevaluated*,
// $dynamicRef, uniqueItems (unless maxItems <= 1), references to other
// documents, oneOf that may overlap, multipleOf on non-integers, formats the
// validator asserts that are not done here (email, hostname, uri, ...;
// Options.IgnoreFormats treats them as annotations), regexp word boundaries
// and multi-line anchors, a recursive reference combined with other
// keywords. Automata past their bounds (20,000 DFA states, lengths
// and repetitions past 1,000 or so inside patterns), subschemas nested more
// than 512 deep (references followed) and schemas whose compilation passes
// its Budget are ErrTooComplex; a schema with no valid instance is
// ErrEmpty.
//
// # Compile cost
//
// Compiling is bounded by a Budget: the automaton states built (those
// thrown away included) and the bytes allocated for tables and nodes,
// counted as they grow, with the other work (decoding the schema's text,
// compiling a subschema, a closure of the subset construction, telling two
// oneOf branches apart) charged in proportion to its time. The default
// limits, 262,144 states and 32 MiB, keep any schema, whatever its text,
// within about 100 ms of CPU and 64 MiB of allocations
// (BenchmarkCompileProbes); the costliest MaskBench schema needs half of
// them. A schema is refused as soon as the budget is spent, naming the
// subschema being compiled. Options.Budget shares one among the schemas of
// a request; CompileJSONSchemaContext stops when its context is done.
//
// # How masks are computed
//
// The JSON structure is a pushdown automaton over bytes (step.go); string
// contents, numbers and object keys are trimmed DFAs, so every transition
// that exists can be completed. A mask walks a trie of the vocabulary's
// 199,998 ordinary tokens (421,660 nodes) with the matcher's state, skipping
// a subtree as soon as its prefix is refused. Inside a string, the tokens
// that stay inside depend only on the string automaton's state: for
// unconstrained content (and every automaton state equivalent to it) they
// are precomputed once per vocabulary, else cached per Grammar; only the
// 1,786-node trie of tokens holding a quote is walked with the full state.
// A value that opens an unconstrained string inside a token takes its
// precomputed set the same way.
//
// # Memory
//
// The vocabulary tables are built once per Encoding (0.3 to 0.7 s, some
// 15 MB: the trie, the token bytes, and the 19 precomputed masks of an
// unconstrained string, one per state of the UTF-8 automaton, 25 KB each)
// and dropped with it. A Grammar holds its nodes and automata,
// Stats().Bytes: 7 KB for two properties with a pattern and a range; over
// MaskBench, 16 KB at the median, 743 KB at p99, 7.8 MB at most (a
// Kubernetes schema). Its string mask cache holds at most 256 masks of
// 25 KB. A Matcher holds its threads (104 bytes per open JSON level each)
// and mask-walk buffers of about 150 KB.
//
// # Concurrency
//
// A Grammar is immutable (its string mask cache is locked) and safe for
// concurrent use; a Matcher is not. Matchers of one Grammar are independent.
//
// # The harmony envelope
//
// An Envelope is the grammar of a whole assistant completion, sampled right
// after the prompt's "<|start|>assistant", with the Grammars of the
// request's function arguments and final answer inside it. Its masks
// include the special tokens. It accepts exactly these token sequences
// (special tokens as written, quoted text as the tokens
// harmony.Encoding.EncodeOrdinary gives for it, TEXT any run of ordinary
// tokens, JSON(g) a token sequence g's Matcher accepts and can end):
//
//	completion = { message "<|end|>" "<|start|>" "assistant" } last
//	message    = "<|channel|>" "analysis" "<|message|>" TEXT
//	           | "<|channel|>" "commentary" "<|message|>" TEXT      (preamble: calls allowed)
//	last       = "<|channel|>" "final" "<|message|>" ANSWER "<|return|>"   (no call required)
//	           | "<|channel|>" "commentary to=functions.NAME " "<|constrain|>" "json"
//	             "<|message|>" JSON(params of NAME) "<|call|>"  (NAME allowed)
//	ANSWER     = TEXT, or JSON(response) with EnvelopeOptions.Response
//
// A function without a Grammar takes any JSON value. ToolChoiceNone allows
// no call and no preamble; ToolChoiceRequired (or a named Function) no final
// answer; a named Function only calls to it; ToolChoiceAuto both kinds of
// last message. EnvelopeOptions.MaxAnalysisTokens bounds the analysis
// content (with each analysis <|end|>) over the whole completion.
//
// Headers are forced in one canonical tokenization: each text between
// special tokens encoded on its own with EncodeOrdinary, the form gpt-oss
// writes (the recipient after the channel, a space before <|constrain|>).
// The same header tokenized differently ("commentary" as one token where
// the canonical form has two, or the recipient before <|channel|>) is
// refused, though it would decode to the same text: the mask must allow one
// path, and the one a tokenizer gives the header's text is the one to
// expect. The
// allowed headers form a trie of token sequences, so that the mask after
// "<|channel|>commentary" allows both a preamble's <|message|> and the
// tokens of " to=functions.".
//
// # Wrapping
//
// A Matcher can be driven inside a larger grammar, as the Envelope does:
// FillMask gives the allowed set for the JSON part, CanEnd says when the
// envelope may close it, AcceptBytes forces text, and IsAllowed tests one
// token without advancing.
package constrain
