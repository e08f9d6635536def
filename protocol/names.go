package protocol

// HostName is the native-messaging host name that the extension connects to
// and that the manifest file is named after (HostName + ".json").
const HostName = "dev.webmcp.bridge"

// ExtensionID is the bridge extension's ID, fixed by the public key in
// extension/manifest.json.
const ExtensionID = "ofcjadafodbdmmpbkmmngnegabkmkjai"

// ExtensionOrigin is the origin Chrome passes to the host as its first
// argument for the unpacked extension, and the first one listed in the
// manifest's allowed_origins (an install may add a store's: install
// --extension-id).
const ExtensionOrigin = "chrome-extension://" + ExtensionID + "/"

// FirefoxAddonID is the bridge add-on's ID in Firefox
// (browser_specific_settings.gecko.id of its Firefox manifest, generated
// from extension/manifest.json). Firefox lists it in the native-messaging
// manifest's allowed_extensions and passes it to the host as its second
// argument, after the manifest's path.
const FirefoxAddonID = "webmcp-bridge@webmcp.dev"

// MetaPrefix is the namespace of every MCP _meta key the bridge defines
// (the reverse-DNS form MCP asks for); the package documentation lists
// them. OldTraceMeta is the one key that had another namespace: the shim
// still reads it, and answers under it, until the next release.
const MetaPrefix = "dev.webmcp/"

// OldTraceMeta is the earlier name of the shim's trace key
// (MetaPrefix+"trace"). Deprecated: ask with MetaPrefix+"trace".
const OldTraceMeta = "webmcp.dev/trace"
