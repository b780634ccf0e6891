package core

import "strconv"

func itoa(i int) string         { return strconv.Itoa(i) }
func strconvF(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
