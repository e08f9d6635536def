// Package cliflag holds the command-line flag types that the bridge's
// commands (webmcp-host, webmcp-shim) share. Production code.
package cliflag

import "strings"

// Strings collects the values of a repeatable flag, in the order given:
// flag.Var(&s, "dir", "…") with -dir A -dir B gives [A B].
type Strings []string

// String returns the values joined by commas.
func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set adds one value.
func (s *Strings) Set(v string) error {
	*s = append(*s, v)
	return nil
}
