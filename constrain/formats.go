package constrain

// Formats. JSON Schema's "format" names are enforced where their language is
// regular and written here exactly; each definition below is the language
// accepted (at most what the validator package accepts, so that nothing
// written under a format fails validation):
//
//   - date: RFC 3339 full-date YYYY-MM-DD, with the days of each month and
//     February 29 in leap years only (Gregorian rule).
//   - time: RFC 3339 full-time hh:mm:ss with an optional fraction and a
//     zone Z, z or ±hh:mm; hours 00-23, minutes and offset minutes 00-59,
//     seconds 00-59 (leap seconds are not written).
//   - date-time: a date, T or t, a time.
//   - uuid: 8-4-4-4-12 hexadecimal digits, either case.
//   - ipv4: four decimal octets 0-255 without leading zeros.
//
// Other formats the validator asserts (email, hostname, uri, ipv6,
// duration, regex, json-pointer, ...) are refused with ErrUnsupported,
// unless Options.IgnoreFormats is set. Format names the validator does not
// know are annotations there, and are ignored here too.

import "fmt"

const (
	reLeapYear = `(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)`
	reDate     = `(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|` + reLeapYear + `-02-29)`
	reTime     = `(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]))`
	reOctet    = `(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
)

// formatRegexps are the formats enforced here, by name: each regexp is the
// language of the definitions above, anchored by anchoredDFA.
var formatRegexps = map[string]string{
	"date":      reDate,
	"time":      reTime,
	"date-time": reDate + `[Tt]` + reTime,
	"uuid":      `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`,
	"ipv4":      reOctet + `(?:\.` + reOctet + `){3}`,
}

// assertedFormats are the formats the validator checks that are not done
// here.
var assertedFormats = map[string]bool{
	"duration": true, "period": true, "hostname": true, "email": true, "ip-address": true,
	"ipv6": true, "uri": true, "iri": true, "uri-reference": true, "uriref": true,
	"iri-reference": true, "uri-template": true, "regex": true, "json-pointer": true,
	"relative-json-pointer": true, "idn-email": true, "idn-hostname": true, "host-name": true,
}

// formatDFA returns the automaton of format name at ptr: that of its
// regexp when it is enforced here, nil (no constraint) for a format that is
// an annotation, and an ErrUnsupported error for one the validator asserts
// that is not enforced here, unless Options.IgnoreFormats makes it an
// annotation.
func (c *compiler) formatDFA(ptr, name string) (*dfa, error) {
	if re, ok := formatRegexps[name]; ok {
		d, err := anchoredDFA(c.m, re)
		if err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: fmt.Errorf("format %q: %w", name, err)}
		}
		return d, nil
	}
	if assertedFormats[name] && !c.opts.IgnoreFormats {
		return nil, unsupported(ptr, "format %q", name)
	}
	return nil, nil
}
