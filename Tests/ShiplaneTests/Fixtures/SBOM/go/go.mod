module example.com/rocket

go 1.22

require (
	github.com/BurntSushi/toml v1.4.0
	gopkg.in/yaml.v3 v3.0.1
)

require golang.org/x/sys v0.21.0 // indirect
