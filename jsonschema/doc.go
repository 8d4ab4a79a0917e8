// Package jsonschema checks the JSON Schemas of harmony tools and response
// formats, and validates tool-call arguments and final answers against
// them, in bounded time and memory whatever the schema.
//
// A [Validator] compiles each schema with
// github.com/santhosh-tekuri/jsonschema/v5 as the draft its "$schema" names
// (2020-12 when it names none; drafts 4, 6, 7, 2019-09 and 2020-12 are
// known) and checks it against that draft's meta-schema. Nothing is ever
// fetched: a reference to another document, or a "$schema" that is not a
// known draft, is an error. A schema that cannot be used is reported as a
// [*harmony.SchemaError] (errors.Is(err, harmony.ErrInvalidSchema)); a value
// that does not match is reported as a [*ValidationError] (errors.Is(err,
// [ErrSchemaViolation])). Programs that only render and parse harmony need
// neither this package nor the validator it pulls in.
//
// A local reference ("$ref", "$dynamicRef" or "$recursiveRef" starting
// "#/") names what it names for constrain and RFC 6901: the fragment is
// percent-decoded, then split into reference tokens, whose "~" escapes are
// then undone ("#/$defs/%7E0" names the member "~", "#/$defs/a%2Fb" the
// member "b" of the member "a"), and array indexes are "0" or digits
// without a leading zero. jsonschema/v5 reads some fragments otherwise, so
// such a reference is given to it rewritten into a form both read alike
// (refs.go); a reference that names nothing is an error ("$ref ... does not
// resolve"), and so is "#/" when the root has a member "", which
// jsonschema/v5 cannot tell from the root.
//
// # Bounds on validation
//
// jsonschema/v5 evaluates every branch of allOf, anyOf and oneOf, so that
// validation can be exponential in the size of a schema: a 1.5 KB chain of
// 24 definitions, each an allOf of two references to the next, costs 2^24
// evaluations per value. Before a schema is used, an analysis of the
// compiled schema bounds what validating any value can cost (cost.go has
// the details):
//
//   - The cost of a location of a value (the value itself, a member, an
//     element, a property name) is the number of subschema evaluations it
//     takes: every path of in-place applicators ($ref, $dynamicRef,
//     $recursiveRef, allOf, anyOf, oneOf, not, if/then/else,
//     dependentSchemas, dependencies) from the subschemas that apply there,
//     cut where a "type" rejects the value. The analysis over-approximates:
//     a dynamic reference may reach any subschema with its anchor, a member
//     name no schema lists matches every patternProperties, and conditional
//     branches run; so it only ever refuses more.
//   - A schema is refused with [ErrSchemaTooComplex] when a location at most
//     16 levels deep in some value (one level per member or element) could
//     cost more than [Options].MaxEvaluations, by default
//     [DefaultMaxEvaluations] (10,000); the [*harmony.SchemaError]'s Pointer
//     names the subschema whose expansion passes the budget. Among the
//     11,305 real schemas of JSONSchemaBench, the costliest location takes
//     3,557 evaluations; 13 schemas are refused, all of them recursive
//     unions whose cost multiplies at each level (one anyOf of six kinds of
//     node that all have a "next" costs 6^d at depth d).
//   - A schema whose cost only passes the budget deeper than 16 levels (a
//     recursive union whose cost doubles every other level, say) is
//     accepted; so is a recursive schema, however deep its values may go.
//     Validating a value nested deeper than the schema allows fails with a
//     [*harmony.SchemaError] wrapping [ErrSchemaTooComplex]. The depth
//     allowed keeps every location within the budget, and the validator's
//     scope (the subschemas it evaluates one inside the other, from the
//     root of the value) within 128: the validator builds the location of
//     each error it meets, failed branches of an anyOf included, in time
//     quadratic in its scope, so that an ordinary recursive union takes
//     seconds on a value nested 120 levels deep. Recursive schemas thus
//     accept values nested some 40 to 60 levels deep; 975 schemas of
//     JSONSchemaBench have such a limit, 111 of them below 32 levels, none
//     below 11.
//   - In-place applicators may nest 64 deep at most (the deepest in
//     JSONSchemaBench nest 11).
//
// Validating a value thus takes at most MaxEvaluations evaluations per
// location, about a microsecond each, more when they fail deep in the
// value and the keywords' own work on it (a pattern, an enum, ...). The
// analysis itself is linear in the size of the compiled schema and bounded:
// a schema whose analysis would need more work is refused as well.
//
// # Bounds on compilation
//
// For draft 2020-12, jsonschema/v5 scans every subschema of a document each
// time it compiles one ((*Compiler).compileDynamicAnchors), which is
// quadratic in the size of the document; in every draft, a reference
// through an anchor or an "$id", or to a location that is not a subschema,
// costs such a scan too. The definitions of a draft 2020-12 schema ("$defs"
// and "definitions" of the root) are therefore given to the compiler as
// documents of their own when that changes nothing (no "$id", anchor or
// dynamic reference; every "$ref" a canonical pointer to a subschema), so
// that any number of definitions compiles in linear time. What is left is
// bounded: a schema is refused with [ErrSchemaTooComplex] when its
// documents would cost more than 4,000,000 such steps (a document of 2,000
// subschemas outside its definitions), when it holds more than 20,000
// subschemas, or when its distinct regular expressions would compile to
// more than 100,000 instructions (a dozen bytes such as "[\pL\pN]{1000}"
// compile to a thousand, in about a millisecond). No schema of
// JSONSchemaBench comes near these bounds: the largest holds 8,225
// subschemas, and needs 5,540 instructions at most. Compiling is linear,
// at some 5 to 50 µs per subschema (checking against the meta-schema
// dominates), so a large schema still takes time to compile: a 900 KB
// Kubernetes schema takes about 0.2 s.
//
// # Cache
//
// A Validator caches compiled schemas, refusals included, by their bytes,
// in a least recently used cache bounded by the memory they hold:
// [Options].CacheBytes, by default [DefaultCacheBytes] (32 MiB). The memory
// of a compiled schema is estimated from its compiled form (size.go: 896
// bytes per subschema, plus its strings, enums, maps and the programs of
// its regular expressions), which the tests check is an upper bound of the
// heap it holds: a realistic 21 KB tool schema holds some 170 KB. Subschemas
// that repeat a "pattern" share one compiled regular expression. A compiled
// schema over an eighth of the cache is not kept.
//
// # Concurrency
//
// A Validator is safe for concurrent use by multiple goroutines. The
// package has no mutable package-level state: Validators with different
// options are independent.
package jsonschema
