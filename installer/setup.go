package installer

// The whole install into a prefix, which install.sh and install.ps1 run:
// the files, the record, the registration and the next steps; and its
// removal.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/internal/firefoxext"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/protocol"
)

// installerEnv names the command that runs the installer, as the next
// steps name it, when it is not the script beside the binaries: the npm
// package's launcher sets it to "npx webmcp-bridge install".
const installerEnv = "WEBMCP_INSTALLER"

// installer is the command that runs this one, as the next steps name it.
func installer() string {
	if s := os.Getenv(installerEnv); s != "" {
		return s
	}
	return installrec.DefaultInstaller()
}

// installPrefix installs into prefix: this binary and the webmcp-shim
// beside it into PREFIX/bin, the extension's folder ext (default: beside
// this binary) into PREFIX/share/webmcp-bridge/extension and the Firefox
// add-on made from it into .../firefox-extension; registers the installed
// host; keeps the record; prints the next steps.
func installPrefix(o *installOpts, prefix, ext, self string) int {
	bin := filepath.Join(prefix, "bin")
	share := filepath.Join(prefix, "share", "webmcp-bridge")
	rec, existed, err := installrec.Load(filepath.Join(share, installrec.FileName))
	if err != nil {
		o.errorf("%v (remove it, or fix the line, and run the install again)", err)
		return 1
	}
	rec.Installer = installer() // doctor's advice names it
	// The store's IDs: those given now join those of an earlier install.
	for _, id := range o.extensionIDs {
		rec.AddExtensionID(id)
	}
	o.extensionIDs = rec.ExtensionIDs
	shim := filepath.Join(filepath.Dir(self), installrec.Exe("webmcp-shim"))
	if _, err := os.Stat(shim); err != nil {
		o.errorf("no webmcp-shim beside this webmcp-host (%v): install from a source checkout (%s builds both) or from a release archive, which holds both", err, installer())
		return 1
	}
	if ext == "" {
		ext = filepath.Join(filepath.Dir(self), "extension")
	}
	if ext, err = filepath.Abs(ext); err != nil {
		o.errorf("%v", err)
		return 1
	}
	if _, err := os.Stat(filepath.Join(ext, "manifest.json")); err != nil {
		o.errorf("%s is not the extension's folder (%v): give --extension DIR", ext, err)
		return 1
	}
	fail := func(format string, args ...any) int {
		o.errorf(format, args...)
		if err := rec.Save(); err != nil {
			o.errorf("write the install record: %v", err)
		}
		return 1
	}
	for _, d := range []string{share, bin} {
		for _, c := range installrec.CreatedDirs(d) {
			rec.Add(installrec.Entry{Kind: installrec.Dir, Path: c})
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail("%v", err)
		}
	}
	host := filepath.Join(bin, installrec.Exe("webmcp-host"))
	for _, f := range [][2]string{{self, host}, {shim, filepath.Join(bin, installrec.Exe("webmcp-shim"))}} {
		if err := installFile(f[0], f[1]); err != nil {
			return fail("%v", err)
		}
		rec.Add(installrec.Entry{Kind: installrec.File, Path: f[1]})
	}
	dest := installrec.ExtensionDir(prefix)
	if !samePath(ext, dest) {
		if err := installTree(ext, dest); err != nil {
			return fail("%v", err)
		}
	}
	rec.Add(installrec.Entry{Kind: installrec.Tree, Path: dest})
	// The Firefox add-on: the same files with Firefox's manifest.
	ffDest := installrec.FirefoxExtensionDir(prefix)
	if err := installFirefoxExtension(dest, ffDest); err != nil {
		return fail("the Firefox add-on: %v", err)
	}
	rec.Add(installrec.Entry{Kind: installrec.Tree, Path: ffDest})
	if err := rec.Save(); err != nil {
		o.errorf("write the install record: %v", err)
		return 1
	}
	if code := o.register(host, rec, installrec.ManifestDir(prefix)); code != 0 {
		rec.Save()
		return code
	}
	if err := rec.Save(); err != nil {
		o.errorf("write the install record: %v", err)
		return 1
	}
	o.nextSteps(bin, dest, ffDest, !existed)
	return 0
}

// installFile copies src to dst (executable) beside it first, then renamed
// over it: a running host or shim keeps its old file. Windows renames a
// program that runs but does not replace it: that one goes aside to
// dst.old, which the next install removes.
func installFile(src, dst string) error {
	if a, err := os.Stat(src); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return nil
		}
	}
	old := dst + ".old"
	os.Remove(old)
	tmp := dst + ".new"
	if err := copyFile(src, tmp, 0o755); err != nil {
		return err
	}
	err := os.Rename(tmp, dst)
	if err != nil && runtime.GOOS == "windows" {
		if os.Rename(dst, old) == nil {
			err = os.Rename(tmp, dst)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install %s: %w", dst, err)
	}
	return nil
}

// copyFile copies the regular file src to dst with mode perm.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}

// installTree copies the folder src to dst.new, then puts it in the place
// of dst.
func installTree(src, dst string) error {
	tmp := dst + ".new"
	if err := removeTree(tmp); err != nil {
		return err
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(tmp, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, to, fi.Mode().Perm()|0o600)
		default:
			return fmt.Errorf("%s is not a file or a folder: the extension's folder holds only those", p)
		}
	})
	if err != nil {
		removeTree(tmp)
		return err
	}
	if err := removeTree(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// installFirefoxExtension writes the Firefox add-on made from the
// extension's folder ext into dst.new, then puts it in the place of dst.
func installFirefoxExtension(ext, dst string) error {
	tmp := dst + ".new"
	if err := removeTree(tmp); err != nil {
		return err
	}
	if err := firefoxext.Build(ext, tmp); err != nil {
		removeTree(tmp)
		return err
	}
	if err := removeTree(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// removeTree removes path and what it holds, deepest first, one entry at a
// time (os.RemoveAll fails on files under Wine); a link is removed, not
// followed. A missing path is no error.
func removeTree(path string) error {
	var paths []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// nextSteps prints what the install did and what is left to do: load the
// extension (ext; in Firefox, when registered, the add-on ffExt), register
// the shim with an agent, try it.
func (o *installOpts) nextSteps(bin, ext, ffExt string, first bool) {
	w := o.stdout
	what := "Installed"
	if !first {
		what = "Updated"
	}
	var started []string
	for _, d := range o.dirs {
		started = append(started, "--user-data-dir="+d)
	}
	startedText := strings.Join(started, " or ")
	fmt.Fprintln(w)
	para(w, "", "  ", what+" webmcp-host and webmcp-shim in "+bin+".")
	fmt.Fprintln(w)
	if !first && len(started) > 0 {
		// Registering a profile after the install: only that profile
		// needs the extension; agents reach every browser through the
		// same shim.
		para(w, "Next: ", "  ", "load the extension in the browser started with "+startedText+`: open chrome://extensions, turn on Developer mode, click "Load unpacked" and pick`)
		para(w, "    ", "    ", ext)
		para(w, "  ", "  ", "(where it is loaded already, click its reload button). Your agents need nothing more: one shim reaches every browser. "+installer()+" alone prints the other steps again.")
		return
	}
	fmt.Fprintln(w, "Next:")
	para(w, "  1. ", "     ", `Load the extension: open chrome://extensions, turn on Developer mode, click "Load unpacked" and pick`)
	para(w, "       ", "       ", ext)
	tail := "A browser started with --user-data-dir=DIR needs " + installer() + " --user-data-dir DIR."
	switch {
	case len(started) > 0:
		tail = "Do so in the browser started with " + startedText + " too: it has extensions of its own."
	case runtime.GOOS == "windows":
		tail = "A browser started with --user-data-dir=DIR has extensions of its own: load it there too."
	}
	para(w, "     ", "     ", "(its ID is "+protocol.ExtensionID+"; where it is loaded already, click its reload button). "+tail)
	if o.firefox {
		para(w, "     ", "     ", `In Firefox, as a temporary add-on (gone when Firefox quits; the add-on is not signed yet): open about:debugging#/runtime/this-firefox, click "Load Temporary Add-on" and pick`)
		para(w, "       ", "       ", filepath.Join(ffExt, "manifest.json"))
	}
	fmt.Fprintln(w, "  2. Register the shim with your agent:")
	shim := filepath.Join(bin, installrec.Exe("webmcp-shim"))
	agents := 0
	for _, a := range []string{"claude", "codex", "gemini", "cursor", "code"} {
		if _, err := exec.LookPath(a); err != nil {
			continue
		}
		switch a {
		case "claude":
			command(w, "       ", "claude", "mcp", "add", "--scope", "user", "webmcp", "--", shim)
			fmt.Fprintln(w, "       and the prompt hook, which this prints:")
			command(w, "       ", shim, "register", "claude")
		case "codex":
			command(w, "       ", "codex", "mcp", "add", "webmcp", "--", shim)
		case "gemini":
			command(w, "       ", "gemini", "mcp", "add", "--scope", "user", "webmcp", shim)
			para(w, "       ", "         ", "(then trust your project's folder in gemini)")
		case "cursor":
			command(w, "       ", shim, "register", "cursor", "--write")
		case "code":
			command(w, "       ", shim, "register", "vscode", "--write")
		}
		agents++
	}
	home, _ := os.UserHomeDir()
	if claudeDesktopFound(runtime.GOOS, home, os.Getenv("APPDATA")) {
		command(w, "       ", shim, "register", "claude-desktop", "--write")
		para(w, "       ", "         ", "(then quit Claude Desktop and start it again)")
		agents++
	}
	const clients = "(claude, codex, gemini, cursor, vscode or claude-desktop)"
	if agents == 0 {
		para(w, "       ", "       ", "no agent CLI found on PATH; "+shim+" register AGENT prints what AGENT "+clients+" needs")
	} else {
		para(w, "       ", "       ", "other agents: "+shim+" register AGENT prints what AGENT "+clients+" needs")
	}
	fmt.Fprintln(w, "  3. Try it:")
	command(w, "       ", shim, "demo")
	para(w, "     ", "     ", "serves a demo app at http://127.0.0.1:8765/; open it in the browser, then")
	command(w, "       ", shim, "status")
	para(w, "     ", "     ", "shows its tools. If nothing shows up:")
	command(w, "       ", shim, "doctor")
	onPath := false
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		onPath = onPath || (d != "" && samePath(d, bin))
	}
	if !onPath {
		fmt.Fprintln(w)
		para(w, "Note: ", "  ", bin+" is not on your PATH; the commands above use full paths, and so does everything register writes.")
	}
}

// claudeDesktopFound says whether Claude Desktop has run for this user:
// its folder (where claude_desktop_config.json goes) is there. It runs on
// macOS and Windows only.
func claudeDesktopFound(goos, home, appData string) bool {
	var dir string
	switch goos {
	case "darwin":
		dir = filepath.Join(home, "Library", "Application Support", "Claude")
	case "windows":
		if appData == "" {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
		dir = filepath.Join(appData, "Claude")
	default:
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// para prints text wrapped at [columns], after first on its first line and
// after indent on the others; a word longer than a line (a long path) gets
// a line of its own rather than being cut.
func para(w io.Writer, first, indent, text string) {
	line, lead := first, true
	for _, word := range strings.Fields(text) {
		switch {
		case lead:
			line += word
			lead = false
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= columns:
			line += " " + word
		default:
			fmt.Fprintln(w, line)
			line = indent + word
		}
	}
	fmt.Fprintln(w, line)
}

// command prints a command to copy, after indent, going on over further
// lines, two columns deeper, when it does not fit in [columns]: after " \"
// on Unix, after " `" on Windows (PowerShell), where a word with a space or
// a quote goes in quotes, and a quoted program after the call operator &.
func command(w io.Writer, indent string, words ...string) {
	cont := `\`
	if runtime.GOOS == "windows" {
		cont = "`"
		words = slices.Clone(words)
		for i, word := range words {
			if strings.ContainsAny(word, " '\"`$;&(){}") {
				words[i] = "'" + strings.ReplaceAll(word, "'", "''") + "'"
			}
		}
		if strings.HasPrefix(words[0], "'") {
			words[0] = "& " + words[0]
		}
	}
	line := indent
	for i, word := range words {
		room := columns
		if i+1 < len(words) {
			room -= 2 // for the continuation
		}
		switch {
		case i == 0:
			line += word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= room:
			line += " " + word
		default:
			fmt.Fprintf(w, "%s %s\n", line, cont)
			line = indent + "  " + word
		}
	}
	fmt.Fprintln(w, line)
}

// uninstallPrefix removes the install in prefix (see uninstall) and says
// what is left to do by hand.
func uninstallPrefix(o *installOpts, prefix, self string) int {
	bin := filepath.Join(prefix, "bin")
	share := filepath.Join(prefix, "share", "webmcp-bridge")
	record := filepath.Join(share, installrec.FileName)
	host := filepath.Join(bin, installrec.Exe("webmcp-host"))
	shim := filepath.Join(bin, installrec.Exe("webmcp-shim"))
	if !present(record) && !present(host) && !present(shim) && !present(share) {
		para(o.stdout, "", "  ", "Nothing to uninstall: no WebMCP bridge in "+prefix+" (no "+record+").")
		return 0
	}
	rec, hasRecord, err := installrec.Load(record)
	status := 0
	switch {
	case err != nil:
		o.errorf("%v (fix the line, or remove the install's files by hand)", err)
		status = 1
	case hasRecord:
		status = uninstall(rec, true, self, o.uninstallLocations(), o.stdout, o.stderr)
	default:
		// An install made before the record existed: the manifests
		// that name its host, the binaries and the extension's folder.
		status = uninstall(nil, false, host, o.uninstallLocations(), o.stdout, o.stderr)
		for _, f := range []string{host, shim} {
			if present(f) {
				if err := os.Remove(f); err != nil {
					o.errorf("%v", err)
					status = 1
				} else {
					say(o.stdout, "removed %s", f)
				}
			}
		}
		if present(share) {
			if err := removeTree(share); err != nil {
				o.errorf("%v", err)
				status = 1
			} else {
				say(o.stdout, "removed %s", share)
			}
		}
	}
	fmt.Fprintln(o.stdout)
	if status == 0 {
		para(o.stdout, "", "  ", "Removed the WebMCP bridge from "+prefix+".")
	} else {
		para(o.stdout, "", "  ", "Some of the WebMCP bridge in "+prefix+" could not be removed: see the messages above.")
	}
	fmt.Fprint(o.stdout, `Left for you to do:
  - remove the extension in each browser and profile where you loaded it:
    chrome://extensions → WebMCP bridge → Remove. Its files are gone, so
    until then the browser shows it as broken (a grey icon; its popup
    shows ERR_FILE_NOT_FOUND);
  - if you registered webmcp-shim with an agent by hand, or in a
    project (register CLIENT --project DIR), remove it there: e.g.
    claude mcp remove webmcp, or the "webmcp" entry and the
    "webmcp-shim context" hook in the project's settings (what
    register --write wrote into your own settings is removed above).
`)
	return status
}
