package jsonschema

import "github.com/go-harmony/harmony/internal/schemanorm"

// decodeSchema decodes a schema for the tests that plan and cost splits on
// decoded documents, as compileUncached has them.
var decodeSchema = schemanorm.Decode
