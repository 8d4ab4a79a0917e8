module github.com/go-harmony/harmony/bench/engine

go 1.26.0

require (
	github.com/go-harmony/harmony v0.0.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require github.com/dlclark/regexp2/v2 v2.5.1 // indirect

replace github.com/go-harmony/harmony => ../..
