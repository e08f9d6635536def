package cli

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// The SDK's lines about an agent that closed stdio while a notification
// was under way stay off stderr (debug level); its other warnings do not.
func TestClientGoneLinesAreDebug(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		env := &Env{Stderr: &b, Verbose: verbose}
		log := slog.New(clientGoneHandler{env.logger(slog.LevelWarn).Handler()})
		log.Warn("calling notifications/tools/list_changed: io: read/write on closed pipe")
		log.Error("server session ended with error", "error", io.ErrClosedPipe)
		log.Warn("something the agent should see", "error", errors.New("the host refused the call"))
		out := b.String()
		if !strings.Contains(out, "something the agent should see") {
			t.Errorf("verbose %v: a real warning is gone:\n%s", verbose, out)
		}
		if got := strings.Contains(out, "closed pipe"); got != verbose {
			t.Errorf("verbose %v: the closed pipe lines shown: %v, want %v:\n%s", verbose, got, verbose, out)
		}
		if verbose && !strings.Contains(out, "level=DEBUG msg=\"server session ended with error\" error=\"io: read/write on closed pipe\"") {
			t.Errorf("--verbose: the session's end is not a debug line:\n%s", out)
		}
	}
}
