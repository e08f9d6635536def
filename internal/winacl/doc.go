// Package winacl judges Windows security descriptors: whether a file, a
// folder or a named pipe is the user's alone. The runtime folder and its
// pipes (package endpoint) and the HTTP token (package token) share it, so
// that they refuse the same things with the same words. Its code is for
// Windows only. Production code.
package winacl
