package harmony

// Role is the role of a message's author.
type Role string

// The roles of the format, in order of authority.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the five roles of the format.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Channel names the assistant writes to.
const (
	ChannelAnalysis   = "analysis"
	ChannelCommentary = "commentary"
	ChannelFinal      = "final"
)

// Author is who wrote a message: a role and, optionally, a name. A tool
// message's author must have a name: it is the tool's name (for example
// "functions.get_weather") and is all its header shows.
type Author struct {
	Role Role   `json:"role"`
	Name string `json:"name,omitempty"`
}

// Content is one part of a message's content: [TextContent], [SystemContent]
// or [DeveloperContent] (or a pointer to one of them).
type Content interface {
	contentType() string
}

// TextContent is plain text.
type TextContent struct {
	Text string `json:"text"`
}

func (TextContent) contentType() string { return "text" }

// contentValue returns c with a pointer dereferenced, so that each switch
// over contents needs a case per type, not two: *TextContent becomes
// TextContent and so on, and a nil pointer becomes nil.
func contentValue(c Content) Content {
	switch v := c.(type) {
	case *TextContent:
		if v != nil {
			return *v
		}
		return nil
	case *SystemContent:
		if v != nil {
			return *v
		}
		return nil
	case *DeveloperContent:
		if v != nil {
			return *v
		}
		return nil
	}
	return c
}

// asText returns the text of c if it is a text part.
func asText(c Content) (string, bool) {
	switch t := c.(type) {
	case TextContent:
		return t.Text, true
	case *TextContent:
		if t != nil {
			return t.Text, true
		}
	}
	return "", false
}

// Message is one message of a conversation. The empty string in Recipient,
// Channel and ContentType means "not set"; a Recipient of "all" is not
// rendered either.
type Message struct {
	Author
	Recipient   string
	Content     []Content
	Channel     string
	ContentType string

	// Header, when set, is the message's header as the model wrote it:
	// the text between <|start|> and <|message|>, special tokens spelled
	// out, such as "assistant<|channel|>commentary to=functions.f
	// <|constrain|>json" where the reference writes "assistant
	// to=functions.f<|channel|>commentary <|constrain|>json". The renderer
	// writes it as it is (each stretch of text between special tokens
	// encoded whole) instead of the reference's form, so that a history
	// holds the model's turns in the tokens it sampled, and a server's
	// prefix cache hits; it does so only while the header reads back (by
	// the reference's header grammar or by recovery's) as exactly what the
	// other fields say, and falls back to the reference's form otherwise
	// (after a field was changed). A header that reads back is written even
	// where the fields alone would be refused: the reference reads
	// gpt-oss's structured answer "<|channel|>final <|constrain|>json" as
	// addressed to "<|constrain|>json", and that message renders from its
	// Header, closed by <|end|> (a recipient read from a bare word after
	// the channel is not one the model addressed). Special tokens in it
	// other than <|channel|> and <|constrain|> are written as text. Parsing
	// sets it with ParseOptions.KeepHeaders, where the model's form differs
	// from the reference's or the fields need it. It is not part of the
	// reference's JSON; its key "header" is left out when unset.
	Header string
}

// NewTextMessage returns a message from role with text as its content.
func NewTextMessage(role Role, text string) Message {
	return Message{Author: Author{Role: role}, Content: []Content{TextContent{Text: text}}}
}

// NewToolMessage returns a tool's reply: a message authored by the tool name
// (for example "functions.get_weather") with text as its content. Set its
// recipient and channel with [Message.WithRecipient] and [Message.WithChannel].
func NewToolMessage(name, text string) Message {
	return Message{Author: Author{Role: RoleTool, Name: name}, Content: []Content{TextContent{Text: text}}}
}

// NewSystemMessage returns a system message with the given content.
func NewSystemMessage(c SystemContent) Message {
	return Message{Author: Author{Role: RoleSystem}, Content: []Content{c}}
}

// NewDeveloperMessage returns a developer message with the given content.
func NewDeveloperMessage(c DeveloperContent) Message {
	return Message{Author: Author{Role: RoleDeveloper}, Content: []Content{c}}
}

// WithName returns a copy of m with the author's name set.
func (m Message) WithName(name string) Message { m.Name = name; return m }

// WithChannel returns a copy of m with the channel set.
func (m Message) WithChannel(channel string) Message { m.Channel = channel; return m }

// WithRecipient returns a copy of m with the recipient set.
func (m Message) WithRecipient(recipient string) Message { m.Recipient = recipient; return m }

// WithContentType returns a copy of m with the content type set, such as
// "<|constrain|>json" (whose marker is rendered as the special token).
func (m Message) WithContentType(contentType string) Message { m.ContentType = contentType; return m }

// WithContent returns a copy of m with c appended to a copy of its content.
func (m Message) WithContent(c ...Content) Message {
	m.Content = append(append(make([]Content, 0, len(m.Content)+len(c)), m.Content...), c...)
	return m
}

// Text returns the concatenation of m's text parts.
func (m Message) Text() string {
	if len(m.Content) == 1 {
		if t, ok := asText(m.Content[0]); ok {
			return t
		}
	}
	var b []byte
	for _, c := range m.Content {
		if t, ok := asText(c); ok {
			b = append(b, t...)
		}
	}
	return string(b)
}

// Conversation is a list of messages.
type Conversation struct {
	Messages []Message `json:"messages"`
}

// NewConversation returns a conversation of the given messages.
func NewConversation(messages ...Message) Conversation {
	return Conversation{Messages: messages}
}
