package installer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/internal/userfiles"
	"github.com/webmcp-bridge/bridge/manifest"
)

// socketWait bounds the wait for a stopped host to remove its socket.
const socketWait = 5 * time.Second

// uninstaller removes an install and says what it did.
type uninstaller struct {
	stdout, stderr io.Writer
	failed         bool
	// removed holds the paths this run removed: a folder is removed only
	// when it has just been emptied (see removeIfEmptied).
	removed map[string]bool
}

func (u *uninstaller) fail(format string, args ...any) {
	say(u.stderr, "webmcp-host uninstall: "+format, args...)
	u.failed = true
}

// gone notes that path was removed, and says so with what.
func (u *uninstaller) gone(path, format string, args ...any) {
	u.removed[path] = true
	say(u.stdout, format, args...)
}

// emptied says whether this run removed something directly in dir.
func (u *uninstaller) emptied(dir string) bool {
	for p := range u.removed {
		if filepath.Dir(p) == dir && p != dir {
			return true
		}
	}
	return false
}

// uninstall removes what rec lists, or without a record the manifests in
// locs that name self, and says what it did and what is left to do by
// hand.
//
// It trusts the record only as far as the places an install writes
// (installrec.Check): this install's binaries and extension folder, the
// manifests that name this install's host, and folders the install made
// once it has emptied them; never through a symbolic link. It stops the
// user's own hosts and shims that run this install's binaries, and removes
// the HTTP token and the runtime folder when that is empty and private.
func uninstall(rec *installrec.Record, hasRecord bool, self string, locs []manifest.Location, stdout, stderr io.Writer) int {
	u := &uninstaller{stdout: stdout, stderr: stderr, removed: map[string]bool{}}
	prefix, inPrefix := "", false
	if hasRecord {
		prefix, inPrefix = installrec.Prefix(rec.Path)
	}
	// The host the manifests of this install name.
	host := self
	if inPrefix {
		host = filepath.Join(prefix, "bin", installrec.Exe("webmcp-host"))
	}

	// 1. The registry values (Windows) and the manifests first, so that a
	// browser cannot start a host again while the rest goes.
	var manifests []installrec.Entry
	if hasRecord {
		manifests = rec.Of(installrec.Manifest)
		u.removeRegValues(rec, host)
	}
	seenKey := map[string]bool{}
	for _, l := range locs {
		if l.Dir == "" {
			// Windows, without a record: a value that names a
			// manifest of this binary.
			for _, k := range l.RegKeys {
				if hasRecord || seenKey[k] {
					continue
				}
				seenKey[k] = true
				if e, ok := u.removeRegValueOf(manifest.HostKey(k), self, ""); ok {
					manifests = append(manifests, e)
				}
			}
			continue
		}
		if m, err := manifest.Read(l.Dir); err == nil && m.Path == self {
			manifests = append(manifests, installrec.Entry{Kind: installrec.Manifest, Path: filepath.Join(l.Dir, manifest.FileName), Note: l.Browser})
		}
	}
	seen := map[string]bool{}
	for _, e := range manifests {
		if seen[e.Path] {
			continue
		}
		seen[e.Path] = true
		u.removeManifest(prefix, host, e)
	}
	// The agents' entries that start this install's shim, beside its
	// host.
	agents := u.removeAgents(filepath.Dir(host))
	if !hasRecord {
		if len(u.removed) == 0 && !agents {
			say(stdout, "no install record and no manifest naming this binary: nothing to remove here")
		}
		return exitOf(u.failed)
	}

	// 2. This user's hosts and shims of this install that still run.
	stopped := u.stopProcesses(prefix, inPrefix)

	// 3. Binaries and the extension's folder.
	for _, e := range rec.Entries {
		if e.Kind != installrec.File && e.Kind != installrec.Tree {
			continue
		}
		if err := installrec.Check(prefix, e); err != nil {
			u.fail("%v; not removing it", err)
			continue
		}
		var err error
		if e.Kind == installrec.File {
			if runtime.GOOS == "windows" {
				// What an install put aside, the binary replaced
				// while it ran (see installFile).
				if os.Remove(e.Path+".old") == nil {
					u.gone(e.Path+".old", "removed %s", e.Path+".old")
				}
			}
			err = os.Remove(e.Path)
			if err != nil && runtime.GOOS == "windows" && samePath(e.Path, self) {
				// Windows keeps the file of a program that runs, but
				// lets it move: to the temporary files.
				if aside, err2 := moveAside(e.Path); err2 == nil {
					u.gone(e.Path, "removed %s (it runs this uninstall: moved to %s, with your temporary files)", e.Path, aside)
					continue
				}
			}
		} else if _, err = os.Lstat(e.Path); err == nil {
			err = removeTree(e.Path)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			u.fail("%v", err)
		default:
			u.gone(e.Path, "removed %s", e.Path)
		}
	}

	// 4. The record, and the folders the install created, deepest first,
	// when this run emptied them.
	if err := u.removeRecord(rec.Path, prefix, inPrefix); err != nil {
		u.fail("%v", err)
	}
	var dirs []string
	for _, e := range rec.Of(installrec.Dir) {
		if err := installrec.Check(prefix, e); err != nil {
			u.fail("%v; not removing it", err)
			continue
		}
		dirs = append(dirs, e.Path)
	}
	// A folder's path is longer than its parent's.
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		u.removeDir(d, true)
	}

	// 5. What the bridge made outside the install: the HTTP token, the
	// runtime folder.
	u.removeToken()
	u.removeRuntimeDir(stopped)

	if len(u.removed) == 0 && !agents {
		say(stdout, "nothing left to remove: what the record listed is gone already")
	}
	return exitOf(u.failed)
}

// removeManifest removes the manifest e when it is in a place of manifests
// and names host, this install's webmcp-host.
func (u *uninstaller) removeManifest(prefix, host string, e installrec.Entry) {
	if err := installrec.Check(prefix, e); err != nil {
		u.fail("%v; not removing it", err)
		return
	}
	dir := filepath.Dir(e.Path)
	m, err := manifest.Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		say(u.stdout, "kept %s%s: it is unreadable (%v); remove it by hand if the bridge wrote it", e.Path, note(e), err)
		return
	case !namesHost(m.Path, host):
		say(u.stdout, "kept %s%s: it names %s, not this install's %s (another install of the bridge wrote it)", e.Path, note(e), m.Path, host)
		return
	}
	ok, err := manifest.Remove(dir)
	switch {
	case err != nil:
		u.fail("%s: %v", e.Path, err)
	case ok:
		u.gone(e.Path, "removed %s%s", e.Path, note(e))
		// Remove takes the folder too when that emptied it.
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			u.removed[dir] = true
		}
	}
}

// note is " (NOTE)" for an entry with a note (a manifest's browser).
func note(e installrec.Entry) string {
	if e.Note == "" {
		return ""
	}
	return " (" + e.Note + ")"
}

// namesHost says whether a manifest's path p is host: the same path, the
// same file, or host's path with its folder's links resolved (install
// writes the resolved path).
func namesHost(p, host string) bool {
	if samePath(p, host) {
		return true
	}
	if a, err := os.Stat(p); err == nil {
		if b, err := os.Stat(host); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	d, err := filepath.EvalSymlinks(filepath.Dir(host))
	return err == nil && samePath(filepath.Join(d, filepath.Base(host)), p)
}

// removeRegValues removes the registry values that rec lists when they name
// a manifest of this install (one that names host), then the keys the
// install created once they are empty.
func (u *uninstaller) removeRegValues(rec *installrec.Record, host string) {
	for _, e := range rec.Of(installrec.RegValue) {
		if err := installrec.Check("", e); err != nil {
			u.fail("%v; not removing it", err)
			continue
		}
		u.removeRegValueOf(strings.TrimPrefix(e.Path, installrec.RegRoot), host, e.Note)
	}
	var keys []string
	for _, e := range rec.Of(installrec.RegKey) {
		if err := installrec.Check("", e); err != nil {
			u.fail("%v; not removing it", err)
			continue
		}
		keys = append(keys, strings.TrimPrefix(e.Path, installrec.RegRoot))
	}
	// A key's path is longer than its parent's.
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		ok, err := manifest.RemoveEmptyKey(k)
		switch {
		case err != nil:
			u.fail("%v", err)
		case ok:
			u.gone(installrec.RegRoot+k, "removed the registry key %s%s", installrec.RegRoot, k)
		}
	}
}

// removeRegValueOf removes the default value of HKCU\key (and the key, once
// empty) when it names a manifest that names host, and returns that
// manifest as an entry to remove.
func (u *uninstaller) removeRegValueOf(key, host, note string) (installrec.Entry, bool) {
	path, err := manifest.ReadRegistry(key)
	if errors.Is(err, fs.ErrNotExist) {
		return installrec.Entry{}, false
	}
	if err != nil {
		u.fail("%v", err)
		return installrec.Entry{}, false
	}
	what := installrec.RegRoot + key
	if note != "" {
		what += " (" + note + ")"
	}
	m, err := manifest.ReadFile(path)
	switch {
	case filepath.Base(path) != manifest.FileName:
		say(u.stdout, "kept %s: it names %s, not a manifest of the bridge", what, path)
		return installrec.Entry{}, false
	case err == nil && !namesHost(m.Path, host):
		say(u.stdout, "kept %s: it names %s, whose host is %s, not this install's %s (another install of the bridge wrote it)", what, path, m.Path, host)
		return installrec.Entry{}, false
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		say(u.stdout, "kept %s: the manifest it names, %s, is unreadable (%v); remove the value by hand if the bridge wrote it", what, path, err)
		return installrec.Entry{}, false
	case err != nil && !u.ownManifest(path, host):
		say(u.stdout, "kept %s: it names %s, which is missing and not this install's", what, path)
		return installrec.Entry{}, false
	}
	if err := manifest.RemoveRegistry(key); err != nil {
		u.fail("%v", err)
		return installrec.Entry{}, false
	}
	u.gone(installrec.RegRoot+key, "removed %s", what)
	return installrec.Entry{Kind: installrec.Manifest, Path: path, Note: "the registry values named it"}, true
}

// ownManifest says whether path is where the install of host keeps its
// manifests on Windows (PREFIX\share\webmcp-bridge\NativeMessagingHosts,
// Firefox's in PREFIX\share\webmcp-bridge\firefox\NativeMessagingHosts).
func (u *uninstaller) ownManifest(path, host string) bool {
	dir := installrec.ManifestDir(filepath.Dir(filepath.Dir(host)))
	return samePath(path, filepath.Join(dir, manifest.FileName)) || samePath(path, filepath.Join(firefoxDir(dir), manifest.FileName))
}

// stopProcesses stops this user's processes that run this install's
// binaries, says which, and returns them.
func (u *uninstaller) stopProcesses(prefix string, inPrefix bool) []proc {
	if !inPrefix {
		return nil
	}
	// The kernel names a process's executable with links resolved.
	resolved, err := filepath.EvalSymlinks(prefix)
	if err != nil {
		resolved = prefix
	}
	var paths []string
	for _, name := range installrec.Binaries {
		p := filepath.Join(prefix, "bin", name)
		if installrec.NoLinks(prefix, p) != nil {
			continue // refused below, when it is removed
		}
		paths = append(paths, p, filepath.Join(resolved, "bin", name))
	}
	stopped := stopProcesses(paths, u.stderr)
	shims := false
	for _, p := range stopped {
		say(u.stdout, "stopped %s", p.describe())
		shims = shims || p.name() == "webmcp-shim"
	}
	if shims {
		say(u.stdout, "an agent that ran a stopped webmcp-shim shows its webmcp server as failed until it restarts")
	}
	return stopped
}

// removeRecord removes the install record.
func (u *uninstaller) removeRecord(path, prefix string, inPrefix bool) error {
	if inPrefix {
		if err := installrec.NoLinks(prefix, path); err != nil {
			return err
		}
	}
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		u.removed[path] = true
	}
	return err
}

// removeDir removes the folder d when this run emptied it (took out all
// that was in it), and says so; d is not a link (installrec.Check). A
// folder it did not empty is kept, with a word when tell is set.
func (u *uninstaller) removeDir(d string, tell bool) {
	entries, err := os.ReadDir(d)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		u.fail("%v", err)
		return
	case len(entries) > 0:
		if tell {
			say(u.stdout, "kept folder %s: it holds files the install did not write", d)
		}
		return
	case !u.emptied(d):
		if tell {
			say(u.stdout, "kept folder %s: it is empty, but held nothing of this install (remove it by hand if the install made it)", d)
		}
		return
	}
	if err := os.Remove(d); err != nil {
		u.fail("%v", err)
		return
	}
	u.gone(d, "removed folder %s", d)
}

// removeToken removes the HTTP token of webmcp-shim --http, and its folder
// when that empties it.
func (u *uninstaller) removeToken() {
	path, err := userfiles.TokenPath()
	if err != nil {
		return
	}
	cfg := filepath.Dir(filepath.Dir(path))
	if err := installrec.NoLinks(cfg, path); err != nil {
		u.fail("not removing the HTTP token: %v", err)
		return
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		u.fail("%v", err)
		return
	case !fi.Mode().IsRegular():
		u.fail("%s is not a file, so not the HTTP token: not removing it", path)
		return
	}
	if err := os.Remove(path); err != nil {
		u.fail("%v", err)
		return
	}
	u.gone(path, "removed the HTTP token %s (the one clients of webmcp-shim --http sent)", path)
	u.removeDir(filepath.Dir(path), true)
}

// removeRuntimeDir removes the runtime folder when it is empty and the
// user's alone, once the hosts stopped have removed their sockets, and the
// cache's webmcp-bridge folder that held it when that empties it; it names
// what it leaves.
func (u *uninstaller) removeRuntimeDir(stopped []proc) {
	dir := endpoint.RuntimeDir()
	deadline := time.Now().Add(socketWait)
	for _, p := range stopped {
		if p.name() != "webmcp-host" {
			continue
		}
		// A host removes its socket on SIGTERM, then exits; no event
		// tells another process so.
		sock := endpoint.SocketPath(dir, p.pid)
		for time.Now().Before(deadline) {
			if _, err := os.Lstat(sock); errors.Is(err, fs.ErrNotExist) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if os.Getenv(endpoint.RuntimeDirEnv) != "" {
		if _, err := os.Lstat(dir); err == nil {
			say(u.stdout, "left the runtime folder %s: $%s names it; remove it if you made it for the bridge", dir, endpoint.RuntimeDirEnv)
		}
		return
	}
	switch err := endpoint.CheckRuntimeDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		say(u.stdout, "left the runtime folder: %v", err)
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			u.fail("%v", err)
			break
		}
		if len(entries) > 0 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			say(u.stdout, "kept the runtime folder %s: it holds %s (a host still running, of another install, or one that crashed)", dir, strings.Join(names, ", "))
			break
		}
		if err := os.Remove(dir); err != nil {
			u.fail("%v", err)
			break
		}
		u.gone(dir, "removed the runtime folder %s", dir)
	}
	// The cache's webmcp-bridge folder: the runtime folder by default, and
	// the tool results that shims saved for agents.
	bridge, err := userfiles.CacheDir()
	if err != nil {
		return
	}
	if installrec.NoLinks(filepath.Dir(bridge), bridge) != nil {
		return
	}
	results := filepath.Join(bridge, userfiles.ResultsDir)
	if fi, err := os.Lstat(results); err == nil && fi.IsDir() {
		say(u.stdout, "left %s: tool results that shims saved for your agents, which may still refer to them (rm -r %s removes them)", results, results)
	}
	u.removeDir(bridge, false)
}

// moveAside moves the file at path into a new folder among the temporary
// files, and returns its new path.
func moveAside(path string) (string, error) {
	dir, err := os.MkdirTemp("", "webmcp-bridge-removed-")
	if err != nil {
		return "", err
	}
	to := filepath.Join(dir, filepath.Base(path))
	if err := os.Rename(path, to); err != nil {
		os.Remove(dir)
		return "", err
	}
	return to, nil
}

func exitOf(failed bool) int {
	if failed {
		return 1
	}
	return 0
}
