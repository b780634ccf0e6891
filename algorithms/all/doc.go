// Package all links every algorithm and every algorithm's kernel package
// into a binary for what they register: engines (for `arbor bench`),
// kernel sources, Go twins and conformance checks (for `arbor kernels`,
// `arbor verify` and the conformance tests). It is to algorithms what
// backend/all is to drivers. all.go is generated from the folders
// (go generate ./algorithms/all): a porter adds a folder and regenerates,
// and TestComplete fails while a folder is missing from the list.
package all

//go:generate go run gen.go
