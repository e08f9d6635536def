package manifest_test

import (
	"fmt"

	"github.com/webmcp-bridge/bridge/manifest"
)

func ExampleLocations() {
	for _, l := range manifest.Locations("linux", "/home/ada", "")[:2] {
		fmt.Printf("%s: %s\n", l.Browser, l.Dir)
	}
	// Output:
	// Chrome: /home/ada/.config/google-chrome/NativeMessagingHosts
	// Chrome Beta: /home/ada/.config/google-chrome-beta/NativeMessagingHosts
}
