package bridgetest

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
)

// GetDemo reads the demo's output until it prints its URL, fetches that
// page and fails the test unless it is the trace viewer. The rest of the
// output is drained.
func GetDemo(t testing.TB, out io.Reader) {
	t.Helper()
	lines := bufio.NewScanner(out)
	var url string
	for lines.Scan() {
		if l := strings.TrimSpace(lines.Text()); strings.HasPrefix(l, "http://127.0.0.1:") {
			url = l
			break
		}
	}
	if url == "" {
		t.Fatal("the demo printed no URL")
	}
	go io.Copy(io.Discard, out)
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Trace viewer") {
		t.Errorf("GET %s = %d:\n%.300s", url, res.StatusCode, body)
	}
}
