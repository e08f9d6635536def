// Package installer is `webmcp-host install` and `webmcp-host uninstall`
// ([Run]): it installs the bridge into a prefix (the binaries, the
// extension and the Firefox add-on made from it, the install record),
// registers the host with the browsers (native-messaging manifests; on
// Windows the registry values that name them) and prints the next steps;
// install.sh and install.ps1 run it. Its uninstall removes what the
// record lists, as far as it names the install's own places, stops the
// user's hosts and shims of the install, and removes the HTTP token and
// the empty runtime folder.
//
// The manifests' content and places are package manifest's, the record's
// format and the install's places package installrec's; this package
// decides what to write and remove, and says so.
package installer
