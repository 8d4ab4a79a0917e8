package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/go-harmony/harmony/internal/utf8x"
)

// Sentinel errors. Every error this package returns is a [*RequestError] or
// an [*OutputError] wrapping one of these (or a *harmony.ParseError), so
// callers can test for them with errors.Is and errors.As.
var (
	// ErrInvalidRequest: a required field is missing, empty or of the wrong
	// shape, or two fields disagree.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnknownMessageRole: a role of a request's message or input item that
	// this package does not know (for example the legacy "function" role).
	// Such messages are never skipped. Its code is "unknown_role". (It is
	// not harmony.ErrUnknownRole, harmony's error for a role name outside
	// its five roles.)
	ErrUnknownMessageRole = errors.New("unknown message role")
	// ErrUnknownItemType: a Responses input item type this package does not know.
	ErrUnknownItemType = errors.New("unknown input item type")
	// ErrUnsupportedRequestContent: request content the prompt cannot carry:
	// a content part gpt-oss cannot read (an image without
	// RequestOptions.ImagePlaceholder, audio, a file, an unknown part type),
	// or a field whose value cannot be represented in the prompt (a name on
	// a system or developer message, encrypted reasoning). Its code is
	// "unsupported_content". (It is not harmony.ErrUnsupportedContent,
	// harmony's error for a content value it has no rendering for.)
	ErrUnsupportedRequestContent = errors.New("unsupported content")
	// ErrUnsupportedParameter: a request parameter this package cannot honour,
	// such as previous_response_id without a RequestOptions.Responses store,
	// n above 1, or logprobs true.
	ErrUnsupportedParameter = errors.New("unsupported parameter")
	// ErrUnknownParameter: a top-level request parameter that OpenAI's API
	// does not have, such as a misspelt "max_tokns". [DecodeRequest]
	// refuses it as OpenAI does: code "unknown_parameter", param the
	// parameter's name, and OpenAI's message.
	ErrUnknownParameter = errors.New("unknown parameter")
	// ErrInvalidName: a message's name does not match ^[a-zA-Z0-9_-]+$, or a
	// tool message's name is not the name of the function it answers.
	ErrInvalidName = errors.New("invalid name")
	// ErrInvalidTool: a tool definition that is not a function, has no valid
	// name, repeats a name, or has parameters that are not a JSON object.
	ErrInvalidTool = errors.New("invalid tool")
	// ErrInvalidToolCall: a tool call without an id or a name, or of a type
	// other than "function".
	ErrInvalidToolCall = errors.New("invalid tool call")
	// ErrUnknownToolCallID: a tool result names an id that no earlier tool
	// call has.
	ErrUnknownToolCallID = errors.New("unknown tool call id")
	// ErrDuplicateToolCallID: two tool calls share an id.
	ErrDuplicateToolCallID = errors.New("duplicate tool call id")
	// ErrToolCallAlreadyAnswered: a second result for a tool call.
	ErrToolCallAlreadyAnswered = errors.New("tool call already answered")
	// ErrMissingToolResult: tool calls without a result before the next user
	// message or the end of the conversation.
	ErrMissingToolResult = errors.New("tool call without a result")

	// ErrItemReference: a Responses item_reference that cannot be resolved:
	// the server keeps no items (RequestOptions.Items is nil), or none
	// with that id. Its code is "invalid_item_reference".
	ErrItemReference = errors.New("item reference cannot be resolved")

	// ErrContextLengthExceeded: the prompt does not fit
	// RequestOptions.ContextWindow with room left for the completion (with
	// truncation "auto", not even with its older turns dropped). Its code
	// is "context_length_exceeded" and its param "messages" or "input", as
	// OpenAI answers; the error wraps a *harmony.BudgetError with the
	// counts. See [ChatCompletionRequest.RenderPrompt].
	ErrContextLengthExceeded = errors.New("context length exceeded")

	// ErrUnexpectedMessage: the model's output holds a message from a role
	// other than the assistant (strict mode only).
	ErrUnexpectedMessage = errors.New("message not written by the assistant")
	// ErrStreamFinished: Process or Finish called after Finish, or an
	// SSEWriter written to after the end of its stream.
	ErrStreamFinished = errors.New("stream already finished")
)

// codes maps each request sentinel to the machine-readable code of
// [RequestError].Code.
var codes = map[error]string{
	ErrInvalidRequest:            "invalid_request",
	ErrUnknownMessageRole:        "unknown_role",
	ErrUnknownItemType:           "unknown_item_type",
	ErrUnsupportedRequestContent: "unsupported_content",
	ErrUnsupportedParameter:      "unsupported_parameter",
	ErrUnknownParameter:          "unknown_parameter",
	ErrInvalidName:               "invalid_name",
	ErrInvalidTool:               "invalid_tool",
	ErrInvalidToolCall:           "invalid_tool_call",
	ErrUnknownToolCallID:         "unknown_tool_call_id",
	ErrDuplicateToolCallID:       "duplicate_tool_call_id",
	ErrToolCallAlreadyAnswered:   "tool_call_already_answered",
	ErrMissingToolResult:         "missing_tool_result",
	ErrItemReference:             "invalid_item_reference",
	ErrSealedReasoning:           "invalid_encrypted_content",
	ErrContextLengthExceeded:     "context_length_exceeded",
	ErrRequestTooComplex:         "request_too_complex",
}

// RequestError reports a request that cannot be turned into a conversation.
// It is what an API server answers with HTTP 400; [HTTPError] gives its
// status and wire form.
type RequestError struct {
	// MessageIndex is the index of the offending message (Chat Completions
	// "messages") or input item (Responses "input"); -1 when the problem is
	// not in a message, and len(messages) when it is at the end of them.
	MessageIndex int
	// Param is the JSON path of the offending parameter, such as
	// "messages[3].tool_call_id" or "tools[0].function.name".
	Param string
	// Code is a short machine-readable code, such as "unknown_tool_call_id".
	Code string
	// Err wraps one of the sentinel errors, with the details.
	Err error
}

// Error describes the problem, starting with "openaicompat: " and the
// parameter's path.
func (e *RequestError) Error() string {
	if e.Param == "" {
		return "openaicompat: " + e.Err.Error()
	}
	return "openaicompat: " + e.Param + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *RequestError) Unwrap() error { return e.Err }

// reqErr builds a RequestError whose Err wraps sentinel with a formatted
// detail, and whose Code is the sentinel's.
func reqErr(index int, param string, sentinel error, format string, args ...any) *RequestError {
	err := sentinel
	if format != "" {
		err = fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	return &RequestError{MessageIndex: index, Param: param, Code: codes[sentinel], Err: err}
}

// maxQuoted is the most bytes of a client's string (an id, a name, a
// type) that an error quotes: a longer one is clipped, with "…", so that an
// error stays small whatever the request held.
const maxQuoted = 64

// clip is s as an error quotes it: at most maxQuoted bytes and "…".
func clip(s string) string { return utf8x.Clip(s, maxQuoted) }

// OutputError reports model output that cannot be converted: tokens that do
// not form harmony messages (Err is then a *harmony.ParseError), or, in strict
// mode, a message from a role other than the assistant.
type OutputError struct {
	// MessageIndex is the index of the malformed message among the messages
	// of the output (the number of messages completed before it).
	MessageIndex int
	// Err is a *harmony.ParseError, or wraps ErrUnexpectedMessage.
	Err error
}

// Error describes the problem, starting with "openaicompat: ".
func (e *OutputError) Error() string {
	return fmt.Sprintf("openaicompat: model output message %d: %v", e.MessageIndex, e.Err)
}

// Unwrap returns the underlying error.
func (e *OutputError) Unwrap() error { return e.Err }

// ErrorResponse is the wire form of an API error: {"error": {...}}.
type ErrorResponse struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the body of an [ErrorResponse].
type ErrorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// errorBody returns the wire form of err: a [*RequestError] becomes an
// "invalid_request_error" with its param and code (answered with HTTP 400);
// anything else, model output errors included, a "server_error" without them
// (HTTP 500).
func errorBody(err error) ErrorResponse {
	var re *RequestError
	if errors.As(err, &re) {
		obj := ErrorObject{Message: strings.TrimPrefix(re.Error(), "openaicompat: "), Type: "invalid_request_error"}
		var ae *apiError
		if errors.As(re.Err, &ae) {
			obj.Message = ae.msg // OpenAI's words, without the param before them
		}
		if re.Param != "" {
			p := re.Param
			obj.Param = &p
		}
		if re.Code != "" {
			c := re.Code
			obj.Code = &c
		}
		return ErrorResponse{Error: obj}
	}
	return ErrorResponse{Error: ErrorObject{Message: strings.TrimPrefix(err.Error(), "openaicompat: "), Type: "server_error"}}
}

// HTTPError gives the HTTP status and the OpenAI error body to answer err
// with, for any error this package returns and the errors of reading a
// request:
//   - a [*RequestError]: 400, "invalid_request_error" with its param and
//     code;
//   - a request body that is not JSON or not of the request's shape (an
//     error of encoding/json, or of [DecodeRequest]): 400,
//     "invalid_request_error", code "invalid_json", param the field at
//     fault when known;
//   - a body over http.MaxBytesReader's limit: 413, "invalid_request_error",
//     code "request_too_large";
//   - a read that passed its deadline (os.ErrDeadlineExceeded: the server's
//     read timeout, while the client was still sending): 408,
//     "invalid_request_error", code "request_timeout";
//   - anything else (model output an [*OutputError] reports, a failure to
//     render or sample): 500, "server_error".
//
// Everything a client can send that harmony cannot render is refused by
// the requests' Conversation methods as a *RequestError, so a 500 always
// means the server's side.
func HTTPError(err error) (int, ErrorResponse) {
	var (
		re  *RequestError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &re):
		return http.StatusBadRequest, errorBody(err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The server's read deadline passed while the client was still
		// sending its request (the net/http error names the addresses,
		// which the client need not see).
		return http.StatusRequestTimeout, errorResponse("the request was not received in time", "invalid_request_error", "", "request_timeout")
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, errorResponse(
			fmt.Sprintf("the request body is larger than %d bytes", mbe.Limit), "invalid_request_error", "", "request_too_large")
	case errors.As(err, &te), errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errBadJSON):
		msg := strings.TrimPrefix(err.Error(), "openaicompat: ")
		if !errors.Is(err, errBadJSON) {
			msg = errBadJSON.Error() + ": " + msg
		}
		param := ""
		if te != nil {
			param = te.Field
		}
		return http.StatusBadRequest, errorResponse(msg, "invalid_request_error", param, "invalid_json")
	}
	return http.StatusInternalServerError, errorBody(err)
}

// errorResponse returns an OpenAI error; an empty param or code is null.
func errorResponse(message, typ, param, code string) ErrorResponse {
	obj := ErrorObject{Message: message, Type: typ}
	if param != "" {
		obj.Param = &param
	}
	if code != "" {
		obj.Code = &code
	}
	return ErrorResponse{Error: obj}
}
