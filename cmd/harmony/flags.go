package main

// This file holds the flag types of the subcommands and the flags that parse
// and stream share.

import (
	"errors"
	"flag"

	"github.com/go-harmony/harmony"
)

// roleValue is a --role flag: a role name or, with allowNone, "none" for the
// unknown role "".
type roleValue struct {
	role      harmony.Role
	allowNone bool
}

// String returns the flag's value, as flag.Value requires.
func (v *roleValue) String() string {
	if v.role == "" {
		return "none"
	}
	return string(v.role)
}

// Set parses a role name, or "none" where the flag allows it.
func (v *roleValue) Set(s string) error {
	if v.allowNone && s == "none" {
		v.role = ""
		return nil
	}
	if !harmony.Role(s).Valid() {
		if v.allowNone {
			return errors.New("want system, developer, user, assistant, tool or none")
		}
		return errors.New("want system, developer, user, assistant or tool")
	}
	v.role = harmony.Role(s)
	return nil
}

// modeValue is render's --mode flag.
type modeValue string

// String returns the flag's value, as flag.Value requires.
func (v *modeValue) String() string { return string(*v) }

// Set accepts completion, conversation or training.
func (v *modeValue) Set(s string) error {
	switch s {
	case "completion", "conversation", "training":
		*v = modeValue(s)
		return nil
	}
	return errors.New("want completion, conversation or training")
}

// reasoningValue is render's --reasoning flag.
type reasoningValue struct{ p harmony.ReasoningPolicy }

// String returns the flag's value, as flag.Value requires.
func (v *reasoningValue) String() string { return v.p.String() }

// Set accepts reference, guide or keep.
func (v *reasoningValue) Set(s string) error {
	if err := v.p.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want reference, guide or keep")
	}
	return nil
}

// parseFlags registers the flags of parse and stream. The function it returns
// gives their role (--role) and parse options, or a usageError for --lenient
// with --recover: the modes are a ladder (strict, lenient, recover, each
// accepting all the one before it accepts), and the two flags name two rungs
// of it.
func parseFlags(fs *flag.FlagSet) func() (harmony.Role, *harmony.ParseOptions, error) {
	role := &roleValue{role: harmony.RoleAssistant, allowNone: true}
	fs.Var(role, "role", "the `ROLE` whose header the tokens start in, right after \"<|start|>ROLE\":\nassistant (the default) for a completion, sampled after \"<|start|>assistant\";\nnone for tokens that start at <|start|>")
	lenient := fs.Bool("lenient", false, "parse in the reference's non-strict mode: a message cut short in its header\nends there (harmony.ParseLenient)")
	recover := fs.Bool("recover", false, "recover malformed model output as a server does: never fails (harmony.ParseRecover)")
	keep := fs.Bool("keep-headers", false, "keep each header's form as the model wrote it (a \"header\" field),\nso that rendering the messages gives back the sampled tokens")
	return func() (harmony.Role, *harmony.ParseOptions, error) {
		mode := harmony.ParseStrict
		switch {
		case *recover && *lenient:
			return "", nil, usageError{errors.New("--lenient and --recover are two parse modes: give one (strict is the default)")}
		case *recover:
			mode = harmony.ParseRecover
		case *lenient:
			mode = harmony.ParseLenient
		}
		return role.role, &harmony.ParseOptions{Mode: mode, KeepHeaders: *keep}, nil
	}
}
