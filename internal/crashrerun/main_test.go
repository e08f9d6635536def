package main

import (
	"strings"
	"testing"
)

// The output of go test in the shape it has (packages' blocks, tests and
// their subtests, the harness's logs), cut short.
const (
	okPackages = "ok  \tgithub.com/webmcp-bridge/bridge/docs\t1.042s\n?   \tgithub.com/webmcp-bridge/bridge/demo\t[no test files]\n"
	crashNames = `--- FAIL: TestNamesComeBack (5.32s)
    --- FAIL: TestNamesComeBack/native (1.40s)
        names_test.go:47: browser process exited: signal: illegal instruction: context canceled
        harness_test.go:271: logs:
            chromium: 2026/12/04 22:48:14.576315 webmcp-host: the browser closed the connection; exiting
`
	crashOpen = `--- FAIL: TestOpenPage (3.01s)
    --- FAIL: TestOpenPage/polyfill (1.10s)
        openpage_test.go:80: open: browser process exited: signal: segmentation fault: context canceled
`
	realFailure = `--- FAIL: TestFormAnswerIsTheNextDocument (9.80s)
    --- FAIL: TestFormAnswerIsTheNextDocument/polyfill (4.22s)
        parity_test.go:152: book_seats through the bridge = "navigated away" (isError true), want the next document's data
`
	e2eFail = "FAIL\n" + "FAIL\tgithub.com/webmcp-bridge/bridge/e2e\t510.080s\n"
)

func TestRerun(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"one crash", okPackages + crashNames + e2eFail + okPackages + "FAIL\n", "^(TestNamesComeBack)$"},
		{"two crashes", crashNames + crashOpen + e2eFail, "^(TestNamesComeBack|TestOpenPage)$"},
		{"a subtest passed beside the crashed one", "--- FAIL: TestNamesComeBack (5.32s)\n    --- PASS: TestNamesComeBack/polyfill (1.1s)\n" + strings.TrimPrefix(crashNames, "--- FAIL: TestNamesComeBack (5.32s)\n") + e2eFail, "^(TestNamesComeBack)$"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rerun(strings.NewReader(tc.out))
			if err != nil || got != tc.want {
				t.Errorf("rerun = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestNoRerun(t *testing.T) {
	for _, tc := range []struct {
		name, out, why string
	}{
		{"all passed", okPackages, "no e2e test failed"},
		{"a crash and a real failure", crashNames + realFailure + e2eFail, "TestFormAnswerIsTheNextDocument/polyfill failed, and not with a browser that crashed"},
		{"killed, not crashed", strings.Replace(crashNames, "illegal instruction", "killed", 1) + e2eFail, "TestNamesComeBack/native failed, and not with"},
		{"another package failed", crashNames + e2eFail + "--- FAIL: TestX (0.1s)\n    x_test.go:1: no\nFAIL\nFAIL\tgithub.com/webmcp-bridge/bridge/shim\t1.0s\n", "github.com/webmcp-bridge/bridge/shim"},
		{"another package first", "--- FAIL: TestX (0.1s)\nFAIL\tgithub.com/webmcp-bridge/bridge/host\t1.0s\n" + crashNames + e2eFail, "github.com/webmcp-bridge/bridge/host"},
		{"a build failed", "FAIL\tgithub.com/webmcp-bridge/bridge/e2e [build failed]\n", "build failed"},
		{"a timeout", crashNames + "panic: test timed out after 30m0s\n\trunning tests:\n\t\tTestSlow (30m0s)\n" + e2eFail, "panicked"},
		{"the parent said more", "--- FAIL: TestNamesComeBack (5.32s)\n    names_test.go:20: the demo did not start\n" + strings.TrimPrefix(crashNames, "--- FAIL: TestNamesComeBack (5.32s)\n") + e2eFail, "TestNamesComeBack failed, and not with"},
		{"e2e failed outside a test", "some output\n" + e2eFail, "outside any test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rerun(strings.NewReader(tc.out))
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("rerun = %q, %v; want an error saying %q", got, err, tc.why)
			}
		})
	}
}
