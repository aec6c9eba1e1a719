module weft.dev/weft

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/go-air/gini v1.0.4 // indirect
)
