module github.com/go-harmony/harmony/bench/engine

go 1.26.0

require (
	github.com/go-harmony/harmony v0.0.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/google/uuid v1.3.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
)

replace github.com/go-harmony/harmony => ../..
