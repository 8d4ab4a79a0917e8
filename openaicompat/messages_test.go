package openaicompat

import "github.com/go-harmony/harmony"

// The tests' oracle for the token path: complete messages, as
// harmony.Encoding.ParseCompletion returns them, converted without a
// parser. The converters from tokens must give the same responses.

func newChatCompletionResponse(msgs []harmony.Message, s Sampling, opts *ResponseOptions) (*ChatCompletionResponse, error) {
	return fromMessages(newChatAcc(opts, false), msgs, s)
}

func newResponse(msgs []harmony.Message, s Sampling, opts *ResponseOptions) (*Response, error) {
	return fromMessages(newRespAcc(opts, false), msgs, s)
}

// fromMessages converts complete messages (the oracle above).
func fromMessages[Out, Resp any, A accumulator[Out, Resp]](a A, msgs []harmony.Message, s Sampling) (Resp, error) {
	c := newClassifier(&a.base().opts)
	if err := replay(msgs, &c, s.Truncated, a); err != nil {
		var zero Resp
		return zero, err
	}
	return a.response(tally{Sampling: s}), nil
}

// replay sends the events of complete messages, as the decoder would have.
// With cut, the last message is reported as cut off by the token limit.
func replay(msgs []harmony.Message, c *classifier, cut bool, s sink) error {
	for i := range msgs {
		m := &msgs[i]
		k, name, err := c.classify(m.Role, m.Name, m.Channel, m.Recipient)
		if err != nil {
			return &OutputError{MessageIndex: i, Err: err}
		}
		if k == kindDropped {
			continue
		}
		s.start(k, name)
		if text := m.Text(); text != "" {
			s.delta(text)
		}
		s.end(cut && i == len(msgs)-1)
	}
	return nil
}
