// Package benchdata generates the conversations that the benchmarks of
// harmony-go and of its command measure, as reference JSON, and lists the
// texts a renderer encodes for them, which the tiktoken-go peers encode one by
// one.
//
// The conversations are deterministic: the same paragraphs, drawn by the same
// seeded generator, in the same mix of messages every time, so that numbers
// from different runs and different benchmarks compare. The package does not
// import the harmony package (whose own tests import it); its JSON is the
// reference implementation's, which harmony.Conversation reads.
package benchdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// Paragraphs are the paragraphs of the kinds a conversation holds: prose,
// code, JSON, several scripts, emoji and runs of white space. The large
// conversation's long texts are drawn from them.
var Paragraphs = []string{
	"The quick brown fox jumps over the lazy dog, and then it runs back again because it forgot its keys. I'LL be there at 10:30, don't worry; we've got 1,234 things to do before 2025-06-28.\n",
	"func (p *Parser) Next() (Kind, error) {\n\tfor p.pos < len(p.buf) {\n\t\tswitch c := p.buf[p.pos]; {\n\t\tcase c == '\\n':\n\t\t\tp.line++\n\t\t}\n\t\tp.pos++\n\t}\n\treturn EOF, nil\n}\n",
	`{"location": "San Francisco, CA", "format": "celsius", "days": [1, 2, 3], "nested": {"ok": true, "value": 3.14159}}` + "\n",
	"東京の天気は晴れです。明日は雨が降るかもしれませんので、傘を持って行ってください。人工知能の研究は急速に進んでいます。\n",
	"Привет, мир! Сегодня хорошая погода, и мы пойдём гулять в парк. Это пример текста на русском языке.\n",
	"مرحبا بالعالم. هذا نص تجريبي باللغة العربية لاختبار الترميز.\n",
	"Emoji 👨‍👩‍👧 family, 🌍 globe, 💖 heart, and naïve café résumé with e\u0301 combining marks.\n",
	"    indented   text\twith\ttabs   and   runs   of   spaces\r\n\r\n   \u00a0\u3000 wide spaces\n",
}

// LargeMessages is the number of messages of the large conversation.
const LargeMessages = 2000

// text returns paragraphs drawn by r until they hold at least n bytes.
func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(Paragraphs[r.IntN(len(Paragraphs))])
	}
	return b.String()
}

// The function tool of both conversations, and the messages that hold it, in
// the reference's JSON: what harmony.NewToolDescription("get_current_weather",
// ...) and the With... builders of harmony's system and developer content
// give.
const (
	weatherTool = `{"name":"get_current_weather","description":"Gets the current weather in the provided location.",` +
		`"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},` +
		`"format":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"}},"required":["location"]}}`

	// smallDeveloper is NewDeveloperMessage(NewDeveloperContent().
	// WithInstructions("Always respond in riddles").WithFunctionTools(weatherTool)).
	smallDeveloper = `{"role":"developer","content":[{"type":"developer_content","instructions":"Always respond in riddles",` +
		`"tools":{"functions":{"name":"functions","tools":[` + weatherTool + `]}}}]}`

	// largeSystem is NewSystemMessage(NewSystemContent().
	// WithConversationStartDate("2025-06-28").WithTools(harmony.BrowserNamespace())).
	largeSystem = `{"role":"system","content":[{"type":"system_content",` +
		`"model_identity":"You are ChatGPT, a large language model trained by OpenAI.","reasoning_effort":"Medium",` +
		`"tools":{"browser":{"name":"browser","description":"Tool for browsing.\nThe ` + "`cursor`" + ` appears in brackets before each browsing display: ` + "`[{cursor}]`" + `.\n` +
		`Cite information from the tool using the following format:\n` + "`【{cursor}†L{line_start}(-L{line_end})?】`" + `, for example: ` + "`【6†L9-L11】`" + ` or ` + "`【8†L3】`" + `.\n` +
		`Do not quote more than 10 words directly from the tool output.\nsources=web (default: web)","tools":[` +
		`{"name":"search","description":"Searches for information related to ` + "`query`" + ` and displays ` + "`topn`" + ` results.",` +
		`"parameters":{"type":"object","properties":{"query":{"type":"string"},"topn":{"type":"number","default":10},"source":{"type":"string"}},"required":["query"]}},` +
		`{"name":"open","description":"Opens the link ` + "`id`" + ` from the page indicated by ` + "`cursor`" + ` starting at line number ` + "`loc`" + `, showing ` + "`num_lines`" + ` lines.\n` +
		`Valid link ids are displayed with the formatting: ` + "`【{id}†.*】`" + `.\nIf ` + "`cursor`" + ` is not provided, the most recent page is implied.\n` +
		`If ` + "`id`" + ` is a string, it is treated as a fully qualified URL associated with ` + "`source`" + `.\n` +
		`If ` + "`loc`" + ` is not provided, the viewport will be positioned at the beginning of the document or centered on the most relevant passage, if available.\n` +
		`Use this function without ` + "`id`" + ` to scroll to a new location of an opened page.",` +
		`"parameters":{"type":"object","properties":{"id":{"type":["number","string"],"default":-1},"cursor":{"type":"number","default":-1},"loc":{"type":"number","default":-1},` +
		`"num_lines":{"type":"number","default":-1},"view_source":{"type":"boolean","default":false},"source":{"type":"string"}}}},` +
		`{"name":"find","description":"Finds exact matches of ` + "`pattern`" + ` in the current page, or the page given by ` + "`cursor`" + `.",` +
		`"parameters":{"type":"object","properties":{"pattern":{"type":"string"},"cursor":{"type":"number","default":-1}},"required":["pattern"]}}]}},` +
		`"conversation_start_date":"2025-06-28","knowledge_cutoff":"2024-06",` +
		`"channel_config":{"valid_channels":["analysis","commentary","final"],"channel_required":true}}]}`

	// largeDeveloper is NewDeveloperMessage(NewDeveloperContent().
	// WithInstructions("Answer carefully.").WithFunctionTools(weatherTool)).
	largeDeveloper = `{"role":"developer","content":[{"type":"developer_content","instructions":"Answer carefully.",` +
		`"tools":{"functions":{"name":"functions","tools":[` + weatherTool + `]}}}]}`
)

// textMessage is a message with text content in the reference's JSON, its
// fields in the reference's order; empty fields are left out.
type textMessage struct {
	Role        string `json:"role"`
	Name        string `json:"name,omitempty"`
	Recipient   string `json:"recipient,omitempty"`
	Content     string `json:"content"`
	Channel     string `json:"channel,omitempty"`
	ContentType string `json:"content_type,omitempty"`
}

// appendMessage appends m's JSON to b, with "<", ">" and "&" unescaped.
func appendMessage(b *bytes.Buffer, m textMessage) {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	if err := e.Encode(m); err != nil {
		panic(err) // strings always encode
	}
	b.Truncate(b.Len() - 1) // the encoder's newline
}

// Small returns the small tool-calling request as {"messages":[...]}: a
// developer message with instructions and a function tool, then the user's
// question. It holds no newline.
func Small() []byte {
	var b bytes.Buffer
	b.WriteString(`{"messages":[` + smallDeveloper + `,`)
	appendMessage(&b, textMessage{Role: "user", Content: "What is the weather in Tokyo?"})
	b.WriteString(`]}`)
	return b.Bytes()
}

// Large returns the large conversation as {"messages":[...]}: 2,000 messages
// (about 4.9 MB of text, 1.3M tokens), a system message with the browser tool
// and a developer message with a function tool, then turns of a user's
// question, the assistant's analysis, its tool call, the tool's result and
// the assistant's commentary, each text but the call's about 3 kB of
// paragraphs drawn by a PCG generator seeded (1, 2). It holds no newline, so
// that it is one line of input for a line-oriented command. The caller may
// modify the slice.
func Large() []byte { return bytes.Clone(large()) }

var large = sync.OnceValue(func() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.Grow(5_300_000)
	b.WriteString(`{"messages":[` + largeSystem + `,` + largeDeveloper)
	for i := 2; i < LargeMessages; i++ {
		var m textMessage
		switch i % 5 {
		case 2:
			m = textMessage{Role: "user", Content: text(r, 2950)}
		case 3:
			m = textMessage{Role: "assistant", Content: text(r, 2950), Channel: "analysis"}
		case 4:
			m = textMessage{Role: "assistant", Content: `{"location":"Tokyo"}`, Channel: "commentary",
				Recipient: "functions.get_current_weather", ContentType: "<|constrain|>json"}
		case 0:
			m = textMessage{Role: "tool", Name: "functions.get_current_weather", Content: text(r, 2950),
				Recipient: "assistant", Channel: "commentary"}
		case 1:
			m = textMessage{Role: "assistant", Content: text(r, 2950), Channel: "commentary"}
		}
		b.WriteByte(',')
		appendMessage(&b, m)
	}
	b.WriteString(`]}`)
	return b.Bytes()
})

// Texts returns the texts a renderer encodes for a conversation in the
// reference's JSON ({"messages":[...]} or a bare array of messages): for each
// message its role, channel, recipient and content type (empty when unset),
// then the text of each content part. The text of a part that is not text
// (system or developer content, which a renderer turns into its own text) is
// part(raw), raw being the part's JSON; a nil part stands the raw JSON in for
// it, a text of about the size of its rendering.
func Texts(conv []byte, part func(raw []byte) (string, error)) ([]string, error) {
	var msgs []struct {
		Role        string          `json:"role"`
		Recipient   string          `json:"recipient"`
		Content     json.RawMessage `json:"content"`
		Channel     string          `json:"channel"`
		ContentType string          `json:"content_type"`
	}
	conv = bytes.TrimSpace(conv)
	if len(conv) > 0 && conv[0] == '[' {
		if err := json.Unmarshal(conv, &msgs); err != nil {
			return nil, fmt.Errorf("benchdata: %w", err)
		}
	} else {
		var c struct {
			Messages *json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(conv, &c); err != nil {
			return nil, fmt.Errorf("benchdata: %w", err)
		}
		if c.Messages == nil {
			return nil, errors.New(`benchdata: conversation without "messages"`)
		}
		if err := json.Unmarshal(*c.Messages, &msgs); err != nil {
			return nil, fmt.Errorf("benchdata: %w", err)
		}
	}
	var texts []string
	for i, m := range msgs {
		texts = append(texts, m.Role, m.Channel, m.Recipient, m.ContentType)
		c := bytes.TrimSpace(m.Content)
		if len(c) > 0 && c[0] == '"' {
			var s string
			if err := json.Unmarshal(c, &s); err != nil {
				return nil, fmt.Errorf("benchdata: message %d: %w", i, err)
			}
			texts = append(texts, s)
			continue
		}
		var parts []json.RawMessage
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, fmt.Errorf("benchdata: message %d: content must be a string or a list of parts: %w", i, err)
		}
		for j, p := range parts {
			var t struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(p, &t); err != nil {
				return nil, fmt.Errorf("benchdata: message %d part %d: %w", i, j, err)
			}
			switch {
			case t.Type == "text" && t.Text != nil:
				texts = append(texts, *t.Text)
			case part != nil:
				s, err := part(p)
				if err != nil {
					return nil, fmt.Errorf("benchdata: message %d part %d: %w", i, j, err)
				}
				texts = append(texts, s)
			default:
				texts = append(texts, string(p))
			}
		}
	}
	return texts, nil
}

// Size returns the total length in bytes of texts.
func Size(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return n
}
