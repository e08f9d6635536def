package e2e

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool's name comes back with its app: navigating away and back, closing
// and reopening the tab, and with two tabs of one site; another site's tool
// of the same page name never gets a name this site held.
func TestNamesComeBack(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		app := demoURL("localhost", "/")
		tabOf := func(name string) string {
			t.Helper()
			tool := b.waitTool(name)
			return strings.SplitN(tool.Description, "]", 2)[0]
		}
		has := func(names ...string) func(map[string]*mcp.Tool) bool {
			return func(tools map[string]*mcp.Tool) bool {
				for _, n := range names {
					if tools[n] == nil {
						return false
					}
				}
				return true
			}
		}
		lacks := func(names ...string) func(map[string]*mcp.Tool) bool {
			return func(tools map[string]*mcp.Tool) bool {
				for _, n := range names {
					if tools[n] != nil {
						return false
					}
				}
				return true
			}
		}

		// Navigate away (another page of the site, with other tools) and back.
		tab1, close1 := b.open(app)
		b.waitTool("find_slices")
		if err := navigate(tab1, demoURL("localhost", "/orders.html")); err != nil {
			t.Fatal(err)
		}
		b.waitTools("find_slices to go and order_stats to come", func(tools map[string]*mcp.Tool) bool {
			return lacks("find_slices")(tools) && has("order_stats")(tools)
		})
		if err := navigate(tab1, app); err != nil {
			t.Fatal(err)
		}
		tools := b.waitTools("find_slices back after navigating back", has("find_slices"))
		if tools["find_slices_2"] != nil {
			t.Errorf("navigated back, the app's tool is listed twice: %v", sortedKeys(tools))
		}

		// Two tabs of the site: the second has a suffix while the first
		// lives, keeps it when the first closes; the first, reopened, has
		// the plain name back.
		_, close2 := b.open(app)
		b.waitTool("find_slices_2")
		close1()
		tools = b.waitTools("the first tab's find_slices to go", lacks("find_slices"))
		if tools["find_slices_2"] == nil {
			t.Fatalf("the second tab's tool lost its name: %v", sortedKeys(tools))
		}
		_, close3 := b.open(app)
		b.waitTools("the reopened tab's find_slices", has("find_slices", "find_slices_2"))
		if tools := b.waitTools("no find_slices_3", has("find_slices")); tools["find_slices_3"] != nil {
			t.Errorf("reopened, the app's tool got a new name: %v", sortedKeys(tools))
		}

		// Another site (127.0.0.1 is another origin, allowed too) with the
		// same page names: a suffix of its own, never one this site held,
		// even once all of this site's tabs are gone.
		other := demoURL("127.0.0.1", "/")
		_, close4 := b.open(other)
		b.waitTool("find_slices_3")
		if d := tabOf("find_slices_3"); !strings.Contains(d, "127.0.0.1") {
			t.Errorf("find_slices_3 is not the other site's: %s", d)
		}
		close2()
		close3()
		tools = b.waitTools("this site's tools to go", lacks("find_slices", "find_slices_2"))
		if tools["find_slices_3"] == nil {
			t.Fatalf("the other site's tool went with this site's tabs: %v", sortedKeys(tools))
		}
		if d := tabOf("find_slices_3"); !strings.Contains(d, "127.0.0.1") {
			t.Errorf("with this site's tabs gone, find_slices_3 is not the other site's: %s", d)
		}
		close4()
		b.waitTools("the other site's tool to go", lacks("find_slices_3"))
		b.open(other)
		tools = b.waitTools("the other site's tool back", has("find_slices_3"))
		if tools["find_slices"] != nil || tools["find_slices_2"] != nil {
			t.Errorf("another site's tool took a name this site held: %v", sortedKeys(tools))
		}
		b.open(app)
		b.waitTools("this site's tool back under its name", has("find_slices", "find_slices_3"))
		if d := tabOf("find_slices"); !strings.Contains(d, "localhost") {
			t.Errorf("find_slices is not this site's: %s", d)
		}
	})
}
