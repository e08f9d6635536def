package host

import (
	"io"
	"log"
)

// logger writes the host's log lines to stderr; never to stdout, which is
// the link to the browser.
type logger struct {
	l     *log.Logger
	debug bool
}

func newLogger(w io.Writer, debug bool) *logger {
	if w == nil {
		w = io.Discard
	}
	return &logger{l: log.New(w, "webmcp-host: ", log.LstdFlags|log.Lmicroseconds|log.Lmsgprefix), debug: debug}
}

// Printf logs one line.
func (l *logger) Printf(format string, args ...any) { l.l.Printf(format, args...) }

// Debugf logs one line when debugging is on.
func (l *logger) Debugf(format string, args ...any) {
	if l.debug {
		l.l.Printf("debug: "+format, args...)
	}
}
