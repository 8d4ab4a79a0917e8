package toolname

import "strings"

// A Policy says which recipients are tools, where the two readers of
// recipients differ. Each difference is a branch of [Rule.Resolve], marked
// with its letter:
//
//   - (a) A declared function written without its namespace ("get_weather")
//     is functions.NAME under Recover, unless its name is an address (d);
//     under Call it is a name like any
//     other (a harmony parser in recovery mode has already qualified it).
//   - (b) Under Recover, functions.NAME (any valid NAME), python and
//     browser.TOOL are tools whether declared or not, and the declarations
//     add to them. Under Call, when anything is declared (a non-nil list),
//     only what is declared is called: functions.NAME for a declared NAME,
//     and NS or NS.TOOL for a declared namespace NS or a declared NS.TOOL;
//     when nothing is, every valid name is.
//   - (c) Under Recover, browser is called only as browser.TOOL and python
//     only alone; a declared namespace NS as NS or NS.TOOL, TOOL being one
//     valid name, NS any declared word. Under Call every name is a dotted
//     name of valid parts (ValidDotted), with any number of parts, and
//     functions alone is no tool.
//   - (d) Under Recover, user, assistant, all and final, when they are no
//     tool, are [Address]es; under Call only all is, and the others are
//     names like any other.
type Policy uint8

const (
	// Recover is harmony's recovery mode (ParseRecover): which recipients a
	// header may keep. What is no tool is dropped from the header.
	Recover Policy = iota
	// Call is the OpenAI layer's: which messages are tool calls, and the
	// name each reports. A message to what is no tool is malformed.
	Call
)

// A Kind is what a recipient names.
type Kind uint8

const (
	// None: no tool the rule accepts, and no address.
	None Kind = iota
	// Function: functions.NAME, a function of the "functions" namespace.
	Function
	// Builtin: a tool of another namespace, called by its whole name:
	// harmony's built-ins python and browser.TOOL, a declared namespace's
	// NS or NS.TOOL, or under Call with nothing declared any valid name.
	Builtin
	// Assistant: the assistant, to which a tool's reply is addressed.
	Assistant
	// Address: the user, or everyone, rather than a tool ((d) in [Policy]):
	// models write such recipients on their answers.
	Address
)

// A Recipient is what [Rule.Resolve] makes of a message's recipient.
type Recipient struct {
	Kind Kind
	// Full is the recipient in full, as a message header holds it:
	// functions.NAME for a function, even one written without its
	// namespace; the recipient itself otherwise.
	Full string
	// Name is the name a call reports: NAME for functions.NAME, the whole
	// recipient otherwise.
	Name string
}

// Valid reports whether a message may be addressed to r: a tool (a
// function or a built-in), or the assistant for a tool's reply.
func (r Recipient) Valid() bool {
	return r.Kind == Function || r.Kind == Builtin || r.Kind == Assistant
}

// A Rule is the one rule for recipients, under one Policy, for the tools one
// prompt declares. The zero value is Recover with nothing declared.
type Rule struct {
	policy     Policy
	declared   bool            // a list of declarations is non-nil
	functions  map[string]bool // the declared functions with valid names, or with spaces
	spaced     []string        // the declared functions whose names hold white space, each bare and with "functions."
	namespaces map[string]bool // the declared namespaces, but ""
}

// NewRule returns the rule under policy p for the functions (their names
// without "functions.") and the other tool namespaces ("browser", "python",
// or any other, whose tools are called "NS" or "NS.TOOL") a prompt declares.
// Function names that are neither valid nor [Spaced] are ignored, as is
// the namespace "". Under Call a namespace may also be a whole dotted name
// ("browser.search").
func NewRule(p Policy, functions, namespaces []string) Rule {
	r := Rule{policy: p, declared: functions != nil || namespaces != nil}
	for _, f := range functions {
		spaced := Spaced(f)
		if Valid(f, 0) || spaced {
			if r.functions == nil {
				r.functions = make(map[string]bool, len(functions))
			}
			r.functions[f] = true
		}
		if spaced {
			// Both spellings, built once: Declared and DeclaredPrefix
			// run on every "to=" word of a header.
			r.spaced = append(r.spaced, f, FunctionsPrefix+f)
		}
	}
	for _, n := range namespaces {
		if n != "" {
			if r.namespaces == nil {
				r.namespaces = make(map[string]bool, len(namespaces))
			}
			r.namespaces[n] = true
		}
	}
	return r
}

// Resolve says what the recipient s of a message is; fromTool says the
// message is a tool's reply. A recipient is, in this order:
//
//   - assistant, for a tool's reply;
//   - a declared function written without its namespace (a);
//   - all, under Call (d);
//   - functions.NAME, NAME a valid name or a declared one with spaces
//     ([Spaced]), if that function is callable (b);
//   - a built-in tool, python or browser.TOOL, or a declared namespace's
//     tool, spelled as (c) says, if callable (b);
//   - user, assistant, all or final, under Recover (d);
//
// and anything else is None.
func (r *Rule) Resolve(s string, fromTool bool) Recipient {
	recovering := r.policy == Recover
	switch {
	case fromTool && s == "assistant":
		return Recipient{Kind: Assistant, Full: s, Name: s}
	case recovering && r.functions[s] && !isAddress(s): // (a)
		return Recipient{Kind: Function, Full: FunctionRecipient(s), Name: s}
	case !recovering && s == "all": // (d)
		return Recipient{Kind: Address, Full: s, Name: s}
	}
	if name, ok := strings.CutPrefix(s, FunctionsPrefix); ok && (Valid(name, 0) || r.functions[name]) {
		if recovering || !r.declared || r.functions[name] { // (b)
			return Recipient{Kind: Function, Full: s, Name: name}
		}
		return Recipient{}
	}
	if r.builtin(s) {
		return Recipient{Kind: Builtin, Full: s, Name: s}
	}
	if recovering && isAddress(s) { // (d)
		return Recipient{Kind: Address, Full: s, Name: s}
	}
	return Recipient{}
}

// Spaced reports whether s is a declared function's name that holds white
// space between its words ("Web Search", as some APIs allow): words of the
// bytes of names, each separated by one space. A header cannot write such a
// name unambiguously, so a reader finds it in the header by [Rule.Declared]
// before splitting the header into words.
func Spaced(s string) bool {
	if !strings.Contains(s, " ") {
		return false
	}
	for _, w := range strings.Split(s, " ") {
		if !Valid(w, 0) {
			return false
		}
	}
	return true
}

// Declared returns the length of the recipient at the start of s (header
// text right after "to=") when it is a declared function whose name holds
// white space, written with or without "functions.", and ends there (at the
// end of s, at white space or at a special token's "<|"); the longest such
// name wins. It returns 0 when s starts with none: the recipient then ends
// at the first white space, as any other.
func (r *Rule) Declared(s string) int {
	best := 0
	for _, w := range r.spaced {
		if len(w) > best && strings.HasPrefix(s, w) && (len(s) == len(w) || boundary(s[len(w):])) {
			best = len(w)
		}
	}
	return best
}

// DeclaredPrefix reports whether s (text right after "to=") is the start
// of a declared function's name that holds white space, written with or
// without "functions.", or all of it: text a reader that has not seen
// the header's end yet must keep together, as Declared would match it.
func (r *Rule) DeclaredPrefix(s string) bool {
	for _, w := range r.spaced {
		if strings.HasPrefix(w, s) {
			return true
		}
	}
	return false
}

// HasSpaced reports whether a declared function's name holds white space.
func (r *Rule) HasSpaced() bool { return len(r.spaced) > 0 }

// boundary reports whether rest starts where a header word ends.
func boundary(rest string) bool {
	c := rest[0]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || strings.HasPrefix(rest, "<|")
}

// builtin reports whether s is a tool of a namespace other than functions
// that the rule lets be called.
func (r *Rule) builtin(s string) bool {
	ns, tool, dotted := strings.Cut(s, ".")
	if r.policy == Call { // (c), (b)
		if ns == "functions" || !ValidDotted(s, 0) {
			return false
		}
		return !r.declared || r.namespaces[ns] || r.namespaces[s]
	}
	if dotted && !Valid(tool, 0) { // (c)
		return false
	}
	switch ns { // (b): always tools; (c): spelled so
	case "browser":
		return dotted
	case "python":
		return !dotted
	}
	return r.namespaces[ns]
}

// isAddress reports whether a recipient names the user or the assistant's
// own answer, as models sometimes write on final messages.
func isAddress(s string) bool {
	return s == "assistant" || s == "user" || s == "all" || s == "final"
}
