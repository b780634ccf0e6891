package main

import "github.com/arbor-gpu/arbor/backend"

// demoMATCHStep is the match part of 'arbor demo'; nil until it lands.
var _ = backend.Device(nil)

func demoMATCH() func(e *env, dev backend.Device) error { return nil }
