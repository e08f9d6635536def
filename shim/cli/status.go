package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

func statusCommand() *Command {
	return &Command{
		Name:    "status",
		Args:    "[--json]",
		Summary: "connected browsers, their tabs and how many tools agents see",
		Run:     runStatus,
	}
}

// StatusJSON is what status --json prints.
type StatusJSON struct {
	RuntimeDir string            `json:"runtimeDir"`
	Hosts      []shim.HostStatus `json:"hosts"`
	Errors     []string          `json:"errors,omitempty"` // hosts that did not answer
	Note       string            `json:"note,omitempty"`   // e.g. that no browser is connected
}

func runStatus(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("status")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	srv, code := connect(ctx, env)
	defer srv.Close()
	hosts := srv.Hosts()

	if *asJSON {
		out := StatusJSON{RuntimeDir: srv.Dir(), Hosts: hosts}
		if out.Hosts == nil {
			out.Hosts = []shim.HostStatus{}
			out.Note = results.NoBrowser
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return code
	}
	if len(hosts) == 0 {
		fmt.Fprintln(env.Stdout, results.NoBrowser)
		fmt.Fprintf(env.Stdout, "(looked for %ss in %s)\n", endpoint.EndpointNoun, srv.Dir())
		return code
	}
	for i, h := range hosts {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		browser := "a browser that has not said hello yet"
		if h.Browser != nil {
			browser = strings.TrimSpace(h.Browser.Name + " " + h.Browser.Version)
		}
		fmt.Fprintf(env.Stdout, "%s (host pid %d, %s, session %s): %s, %s\n",
			browser, h.PID, filepath.Base(h.Socket), h.Session, plural(len(h.Tabs), "tab"), plural(h.Tools, "page tool"))
		if len(h.Tabs) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  TAB\tACTIVE\tALLOWED\tTOOLS\tTITLE\tURL")
		for _, t := range h.Tabs {
			title, url := textcut.Line(t.Title, 40), textcut.Line(t.URL, 60)
			if !t.Allowed {
				// The browser keeps the title and URL of such a tab
				// from the bridge; its origin is all there is.
				title, url = "(site not allowed)", textcut.Line(t.Origin, 60)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%s\t%s\n", t.ID, yes(t.Active), yes(t.Allowed), t.Tools, title, url)
		}
		tw.Flush()
		if slices.ContainsFunc(h.Tabs, func(t shim.TabInfo) bool { return !t.Allowed }) {
			fmt.Fprintln(env.Stdout, "  A site not allowed reaches agents only as its origin, without tools. To allow it,")
			fmt.Fprintln(env.Stdout, "  click the extension's toolbar button on its tab and turn on \"Let local agents use this site\".")
		}
	}
	// What agents see: these page tools and the bridge's own (list_tabs,
	// …), as webmcp-shim tools lists them.
	bridge, pages := 0, 0
	for _, t := range srv.Tools() {
		if t.Bridge {
			bridge++
		} else {
			pages++
		}
	}
	fmt.Fprintf(env.Stdout, "\nAgents see %s: %s and the bridge's own %d (webmcp-shim tools lists them).\n",
		plural(bridge+pages, "tool"), plural(pages, "page tool"), bridge)
	return code
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
