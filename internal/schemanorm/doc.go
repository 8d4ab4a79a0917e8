// Package schemanorm holds the rules every reader of JSON Schemas in this
// module shares — the renderer, constrain, jsonschema and the normalizer
// itself — each written once: JSON Pointers and their URI fragment form
// ([Pointer], [ParseFragment], pointer.go), which keywords hold subschemas
// and the walk over them ([KeywordPosition], [Walk], [WalkDecoded],
// keywords.go), the decoding of a schema ([Decode]) and when a tool takes no
// parameters ([NoParameters], decode.go).
//
// Its main job rewrites the JSON Schemas that clients generate
// (Pydantic, zod-to-json-schema, OpenAI strict mode, ...) into the plain
// shapes that the harmony TypeScript renderer (internal/schemats) can show
// the model: no $ref, no anyOf, no {"type": "null"} members, no const, no
// allOf of objects.
//
// The rewrite works on the ojson parse of the schema, so object members keep
// their document order, and every value it does not rewrite (defaults, enums,
// examples, numbers) is printed by ojson.AppendCompact exactly as the
// renderer would print it.
//
// Rules, applied to every schema of the document (the root, and every
// subschema under properties, items, oneOf, allOf, $defs, ...; never inside
// values such as "default", "enum" or "examples"), children first:
//
//   - A local "$ref" (a JSON pointer into the document: "#/$defs/X",
//     "#/definitions/X", "#/properties/a", "#") is replaced by its target,
//     itself normalized. Keys next to the "$ref" win over the target's keys
//     ({"$ref": ..., "description": ...} keeps its own description); the
//     target's keys take the place of "$ref". A boolean target true adds no
//     keys; false becomes {"not": {}}.
//   - A "$ref" to a schema that takes part in a reference cycle (a recursive
//     model) is left as it is, as is everything on the JSON pointer path to
//     that schema, so that the reference still resolves. The result is
//     finite and normalizing it again changes nothing.
//   - When the document has a $ref this package cannot resolve safely (one
//     that does not resolve, one to another document, an anchor, a
//     $dynamicRef or $recursiveRef, or a nested $id that changes the base of
//     references), no $ref is inlined and no definition is removed; the
//     rules below still apply away from the paths that references point to.
//   - "$defs" and "definitions" members that no remaining "$ref" points into
//     are removed, and the keyword too once it is empty.
//   - "anyOf" becomes "oneOf" (unless the schema also has a "oneOf").
//   - Members of "oneOf" that are {"type": "null"} (optionally with a title,
//     description or $comment) are removed and the schema gets
//     "nullable": true. When one member remains, its keys replace the
//     "oneOf", the schema's own keys (description, default, title, ...)
//     winning over the member's, and "nullable" follows them.
//   - "type": ["X", "null"] becomes "type": "X" followed by
//     "nullable": true; with several non-null types the array keeps them.
//   - "const": v becomes "enum": [v] (unless the schema also has an "enum").
//   - "allOf" is merged into its schema when it has one member, or when all
//     its members (and the schema) are object schemas ("type" absent or
//     "object"). The schema holding the allOf counts as the first member.
//     Members' keys take the place of "allOf", in member order; "properties"
//     are concatenated in order (the first definition of a property wins),
//     "required" lists are united in order, and for every other key the
//     first member that has it wins.
//
// Members containing "$id", "$anchor", "$schema", "$dynamicRef" or
// "$recursiveRef" are never merged or spliced into their parent, nor is a
// member's "$ref" into a parent that has one; and a merge or splice that
// would drop a member's value holding a reference or an identifier (because
// the parent's key wins) is not done. These keep the result a fixed point:
// which references can be inlined, and which paths must keep their shape,
// is the same when the output is normalized again.
//
// The rewrite is for display: anyOf as oneOf and a merged allOf with
// conflicting keys are not equivalent schemas, so validate against the
// original.
package schemanorm
