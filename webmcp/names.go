package webmcp

// HostName is the native-messaging host name that the extension connects to
// and that the manifest file is named after (HostName + ".json").
const HostName = "dev.webmcp.bridge"

// ExtensionID is the bridge extension's ID, fixed by the public key in
// extension/manifest.json.
const ExtensionID = "ofcjadafodbdmmpbkmmngnegabkmkjai"

// ExtensionOrigin is the origin Chrome passes to the host as its first
// argument, and the only one listed in the manifest's allowed_origins.
const ExtensionOrigin = "chrome-extension://" + ExtensionID + "/"
