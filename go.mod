module github.com/acfcd/acfcd

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/minio/simdjson-go v0.4.5
	golang.org/x/sys v0.49.0
)

require github.com/klauspost/compress v1.15.15 // indirect
