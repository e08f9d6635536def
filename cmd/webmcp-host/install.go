package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// installCmd runs `webmcp-host install` and `webmcp-host uninstall`: write
// the native-messaging manifest that names this binary for the installed
// browsers, or remove what an install wrote.
func installCmd(name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webmcp-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs, browsers multiFlag
	fs.Var(&dirs, "user-data-dir", "also (un)register for a browser started with --user-data-dir=`DIR` (repeatable)")
	noBrowsers := fs.Bool("no-browsers", false, "skip the browsers' own user-level manifest folders")
	record := fs.String("record", "", "the install record `FILE`: install adds what it wrote, uninstall removes what it lists")
	if name == "install" {
		fs.Var(&browsers, "browser", "register for browser `KEY` even if it does not seem installed (repeatable; "+strings.Join(browserKeys(), ", ")+")")
	}
	fs.Usage = func() {
		if name == "install" {
			fmt.Fprintf(stderr, "Usage: webmcp-host install [--user-data-dir DIR]... [--browser KEY]... [--no-browsers] [--record FILE]\n\n")
			fmt.Fprintf(stderr, "Writes %s, naming this binary, into the native-messaging folder of every\nsupported browser installed on this system and of each --user-data-dir.\n\n", manifest.FileName)
		} else {
			fmt.Fprintf(stderr, "Usage: webmcp-host uninstall [--record FILE] [--user-data-dir DIR]... [--no-browsers]\n\n")
			fmt.Fprintf(stderr, "Removes what the install record lists, as far as it names the install's own\nplaces (its binaries, the extension's folder, manifests that name its host,\nthe folders it made once emptied; never through a symbolic link), stops your\nhosts and shims that run its binaries, and removes the HTTP token and the\nempty runtime folder. Without a record, removes the manifests that name\nthis binary.\n\n")
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		say(stderr, "webmcp-host %s: unexpected argument %q", name, fs.Arg(0))
		return 2
	}
	for _, b := range browsers {
		if !slices.Contains(browserKeys(), b) {
			say(stderr, "webmcp-host install: unknown browser %q: want one of %s", b, strings.Join(browserKeys(), ", "))
			return 2
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		say(stderr, "webmcp-host %s: %v", name, err)
		return 1
	}
	var locs []manifest.Location
	if !*noBrowsers {
		locs = manifest.Locations(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME"))
	}
	var profiles []manifest.Location
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			say(stderr, "webmcp-host %s: %v", name, err)
			return 1
		}
		profiles = append(profiles, manifest.UserDataDir(abs))
	}
	if len(locs) == 0 && len(profiles) == 0 && *record == "" {
		say(stderr, "webmcp-host %s: nothing to do on %s: give --user-data-dir DIR", name, runtime.GOOS)
		return 2
	}
	var rec *installrec.Record
	var hasRecord bool
	if *record != "" {
		abs, _ := filepath.Abs(*record)
		if rec, hasRecord, err = installrec.Load(abs); err != nil {
			say(stderr, "webmcp-host %s: %v", name, err)
			return 1
		}
	}
	self, err := selfPath()
	if err != nil {
		say(stderr, "webmcp-host %s: cannot find this binary's path: %v", name, err)
		return 1
	}
	if name == "uninstall" {
		return uninstall(rec, hasRecord, self, append(locs, profiles...), stdout, stderr)
	}

	// Only the browsers that are installed (or asked for).
	sys := manifest.System{GOOS: runtime.GOOS, Home: home, LookPath: exec.LookPath}
	var chosen []manifest.Location
	var found, skipped []string
	for _, l := range locs {
		if slices.Contains(browsers, l.Key) || manifest.Installed(l, sys) {
			chosen = append(chosen, l)
			found = append(found, l.Browser)
		} else {
			skipped = append(skipped, l.Browser)
		}
	}
	if !*noBrowsers {
		if len(found) > 0 {
			say(stdout, "browsers found: %s", strings.Join(found, ", "))
		} else {
			say(stdout, "no supported browser found (%s)", strings.Join(browserKeys(), ", "))
		}
		if len(skipped) > 0 {
			say(stdout, "skipped, not installed: %s (--browser KEY registers one anyway)", strings.Join(skipped, ", "))
		}
	}
	chosen = append(chosen, profiles...)
	m, err := manifest.New(self)
	if err != nil {
		say(stderr, "webmcp-host install: %v", err)
		return 1
	}
	for _, l := range chosen {
		created := installrec.CreatedDirs(l.Dir)
		old, readErr := manifest.Read(l.Dir)
		path, err := manifest.Write(m, l.Dir)
		if err != nil {
			say(stderr, "webmcp-host install: %s: %v", l.Browser, err)
			return 1
		}
		if readErr == nil && old.Path == m.Path && slices.Equal(old.AllowedOrigins, m.AllowedOrigins) {
			say(stdout, "unchanged %s (%s)", path, l.Browser)
		} else {
			say(stdout, "wrote %s (%s)", path, l.Browser)
		}
		if rec != nil {
			for _, d := range created {
				rec.Add(installrec.Entry{Kind: installrec.Dir, Path: d})
			}
			rec.Add(installrec.Entry{Kind: installrec.Manifest, Path: path, Note: l.Browser})
		}
	}
	if rec != nil {
		if err := rec.Save(); err != nil {
			say(stderr, "webmcp-host install: write the install record: %v", err)
			return 1
		}
	}
	if len(chosen) == 0 {
		say(stdout, "no manifest written: install a browser (or give --browser KEY or --user-data-dir DIR) and run the install again")
		return 0
	}
	say(stdout, "extension ID %s may start %s", webmcp.ExtensionID, self)
	return 0
}

// browserKeys are the names --browser takes.
func browserKeys() []string {
	var keys []string
	for _, l := range manifest.Locations("darwin", "/", "") {
		keys = append(keys, l.Key)
	}
	return keys
}

// selfPath is this binary's absolute path, symlinks resolved.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	return self, err
}

type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
