// Command crashrerun reads the output of go test (standard input) and
// prints the end-to-end tests to run once more because the Chromium under
// test crashed in them: a regular expression for go test -run, such as
// ^(TestNamesComeBack|TestOpenPage)$. It prints nothing, and exits 1,
// when anything else failed: another package, a build, a panic, a
// timeout, or a failing test of the e2e package whose failure does not
// say that the browser process died of a crash signal.
//
// Chromium 156's browser process now and then dies of a failed CHECK
// ("browser process exited: signal: illegal instruction") while a test in
// native mode navigates a page with WebMCP tools: a getTools() under way
// as a document navigates brings it down (docs/limits.md,
// BenchmarkNavCrash). ./test.sh runs such tests once more, and fails if
// they fail again.
//
//	go test ./... 2>&1 | tee log; go run ./internal/crashrerun <log
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// e2ePackage is the package whose tests drive Chromium.
const e2ePackage = "github.com/webmcp-bridge/bridge/e2e"

// crashed is how chromedp reports a browser process that died of a
// signal that nobody sent it (the harness stops browsers with SIGKILL or
// SIGTERM; those do not count).
var crashed = regexp.MustCompile(`browser process exited: signal: (illegal instruction|segmentation fault|trace/breakpoint trap|aborted|bus error)`)

var (
	failLine  = regexp.MustCompile(`^\s*--- FAIL: (\S+) \(`)
	otherLine = regexp.MustCompile(`^\s*(--- (PASS|SKIP): |=== )`)
	pkgFail   = regexp.MustCompile(`^FAIL\s+(\S+)`)
	pkgOK     = regexp.MustCompile(`^(ok|\?)\s+\S+`)
)

func main() {
	run, err := rerun(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashrerun:", err)
		os.Exit(1)
	}
	fmt.Println(run)
}

// rerun returns the -run expression of the tests to run again, or an
// error that says why nothing is.
func rerun(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	failed := map[string]*failure{} // the failing tests of the package's block
	var order []string
	current := ""
	var tops []string
	e2eFailed := false
	for sc.Scan() {
		line := sc.Text()
		if m := failLine.FindStringSubmatch(line); m != nil {
			current = m[1]
			if failed[current] == nil {
				order = append(order, current)
			}
			failed[current] = &failure{}
			continue
		}
		if otherLine.MatchString(line) {
			current = ""
			continue
		}
		if m := pkgFail.FindStringSubmatch(line); m != nil && line != "FAIL" {
			if m[1] != e2ePackage || strings.Contains(line, "[") {
				return "", fmt.Errorf("%s failed, not only a browser that crashed", strings.TrimSpace(line))
			}
			e2eFailed = true
			t, err := crashedOnly(failed, order)
			if err != nil {
				return "", err
			}
			tops = t
			failed, order, current = map[string]*failure{}, nil, ""
			continue
		}
		if pkgOK.MatchString(line) {
			failed, order, current = map[string]*failure{}, nil, ""
			continue
		}
		if strings.HasPrefix(line, "panic: ") {
			return "", fmt.Errorf("a test panicked (%s), not only a browser that crashed", line)
		}
		if current != "" && strings.TrimSpace(line) != "" {
			f := failed[current]
			f.said = true
			if crashed.MatchString(line) {
				f.crashed = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if !e2eFailed || len(tops) == 0 {
		return "", fmt.Errorf("no e2e test failed with a crashed browser")
	}
	return "^(" + strings.Join(tops, "|") + ")$", nil
}

// failure is what the output of one failing test said.
type failure struct {
	said    bool // it logged anything
	crashed bool // it said that the browser process died of a crash signal
}

// crashedOnly returns the top-level tests of a failing package when each
// of its failing leaf tests failed with a browser that crashed (and the
// tests above them said nothing, or said so too).
func crashedOnly(failed map[string]*failure, order []string) ([]string, error) {
	if len(order) == 0 {
		return nil, fmt.Errorf("%s failed outside any test (a panic, a timeout or a build)", e2ePackage)
	}
	tops := map[string]bool{}
	for _, name := range order {
		leaf := true
		for _, other := range order {
			if strings.HasPrefix(other, name+"/") {
				leaf = false
				break
			}
		}
		if f := failed[name]; !f.crashed && (leaf || f.said) {
			return nil, fmt.Errorf("%s failed, and not with a browser that crashed", name)
		}
		tops[strings.SplitN(name, "/", 2)[0]] = true
	}
	names := make([]string, 0, len(tops))
	for n := range tops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
