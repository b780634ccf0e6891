// Package repocheck holds tests over the whole repository rather than
// one package: every ARBOR_* variable the code and the scripts read is
// documented in docs/env.md (and no more of them than the issue allows),
// and functions stay short. It has no code of its own.
package repocheck
