package harmony

// This file holds the events a StreamParser reports after each token (the
// shape of x/net/html's tokenizer), which servers use instead of comparing
// snapshots of the parser's state.

import "fmt"

// EventKind says what happened in a [StreamParser] during one call of
// Process or ProcessEOS.
type EventKind uint8

// The events of a stream, in the order they happen to each message: it
// starts, its header completes, its content grows, it ends.
const (
	// EventMessageStart: a message began; its header is being read. For the
	// first message of a parser told its role, it is reported with the
	// first token. A start not followed by a header before the next start
	// was a header the parser dropped (lenient mode drops some headers cut
	// short, as the reference does).
	EventMessageStart EventKind = iota + 1
	// EventHeader: the message's header is complete; the event carries its
	// fields. Content follows.
	EventHeader
	// EventDelta: text was added to the message's content; the event
	// carries it.
	EventDelta
	// EventMessageEnd: the message is complete; the event carries its index
	// in [StreamParser.Messages].
	EventMessageEnd
)

// String returns the event kind's name, such as "MessageStart".
func (k EventKind) String() string {
	switch k {
	case EventMessageStart:
		return "MessageStart"
	case EventHeader:
		return "Header"
	case EventDelta:
		return "Delta"
	case EventMessageEnd:
		return "MessageEnd"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing that happened in a stream. Only the fields of its kind
// are set.
type Event struct {
	Kind EventKind
	// Header fields, for EventHeader.
	Role        Role
	Name        string
	Channel     string
	Recipient   string
	ContentType string
	// Text added to the content, for EventDelta. Like every text the parser
	// returns, it stays valid after later calls.
	Text string
	// Message is the index of the completed message in Messages(), for
	// EventMessageEnd.
	Message int
}

// Events returns what the last call of Process or ProcessEOS did, in order:
// several events when a token ends one message and starts the next, or
// completes a header cut short. Together they describe every message:
// start, header, deltas that concatenate to its content, end. The slice is
// the parser's own and valid until the next call of Process, ProcessEOS or
// Reset; the texts in it stay valid.
func (p *StreamParser) Events() []Event {
	p.flushDelta()
	return p.events
}

// Dropped returns how many tokens, header words and recipients recovery
// ([ParseRecover]) has dropped since the parser was created or reset:
// a count for a server's warnings, zero for well-formed output.
func (p *StreamParser) Dropped() int { return p.dropped }
