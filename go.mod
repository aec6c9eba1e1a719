module weft.dev/weft

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/go-air/gini v1.0.4
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/mod v0.21.0
	golang.org/x/tools v0.26.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
)
