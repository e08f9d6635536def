package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
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
			fmt.Fprintf(stderr, "Removes what the install record lists (manifests, binaries, the extension's\nfolder, folders it created) and stops the hosts it installed; without a\nrecord, removes the manifests that name this binary.\n\n")
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
		fmt.Fprintf(stderr, "webmcp-host %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	for _, b := range browsers {
		if !slices.Contains(browserKeys(), b) {
			fmt.Fprintf(stderr, "webmcp-host install: unknown browser %q: want one of %s\n", b, strings.Join(browserKeys(), ", "))
			return 2
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(stderr, "webmcp-host %s: %v\n", name, err)
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
			fmt.Fprintf(stderr, "webmcp-host %s: %v\n", name, err)
			return 1
		}
		profiles = append(profiles, manifest.UserDataDir(abs))
	}
	if len(locs) == 0 && len(profiles) == 0 && *record == "" {
		fmt.Fprintf(stderr, "webmcp-host %s: nothing to do on %s: give --user-data-dir DIR\n", name, runtime.GOOS)
		return 2
	}
	var rec *installrec.Record
	var hasRecord bool
	if *record != "" {
		abs, _ := filepath.Abs(*record)
		if rec, hasRecord, err = installrec.Load(abs); err != nil {
			fmt.Fprintf(stderr, "webmcp-host %s: %v\n", name, err)
			return 1
		}
	}
	self, err := selfPath()
	if err != nil {
		fmt.Fprintf(stderr, "webmcp-host %s: cannot find this binary's path: %v\n", name, err)
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
			fmt.Fprintf(stdout, "browsers found: %s\n", strings.Join(found, ", "))
		} else {
			fmt.Fprintf(stdout, "no supported browser found (%s)\n", strings.Join(browserKeys(), ", "))
		}
		if len(skipped) > 0 {
			fmt.Fprintf(stdout, "skipped, not installed: %s (--browser KEY registers one anyway)\n", strings.Join(skipped, ", "))
		}
	}
	chosen = append(chosen, profiles...)
	m, err := manifest.New(self)
	if err != nil {
		fmt.Fprintf(stderr, "webmcp-host install: %v\n", err)
		return 1
	}
	for _, l := range chosen {
		created := installrec.CreatedDirs(l.Dir)
		old, readErr := manifest.Read(l.Dir)
		path, err := manifest.Write(m, l.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "webmcp-host install: %s: %v\n", l.Browser, err)
			return 1
		}
		if readErr == nil && old.Path == m.Path && slices.Equal(old.AllowedOrigins, m.AllowedOrigins) {
			fmt.Fprintf(stdout, "unchanged %s (%s)\n", path, l.Browser)
		} else {
			fmt.Fprintf(stdout, "wrote %s (%s)\n", path, l.Browser)
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
			fmt.Fprintf(stderr, "webmcp-host install: write the install record: %v\n", err)
			return 1
		}
	}
	if len(chosen) == 0 {
		fmt.Fprintf(stdout, "no manifest written: install a browser (or give --browser KEY or --user-data-dir DIR) and run the install again\n")
		return 0
	}
	fmt.Fprintf(stdout, "extension ID %s may start %s\n", webmcp.ExtensionID, self)
	return 0
}

// uninstall removes what rec lists, or without a record the manifests in
// locs that name self, and says what it did and what is left to do by
// hand.
func uninstall(rec *installrec.Record, hasRecord bool, self string, locs []manifest.Location, stdout, stderr io.Writer) int {
	removed := 0
	failed := false
	fail := func(format string, args ...any) {
		fmt.Fprintf(stderr, "webmcp-host uninstall: "+format+"\n", args...)
		failed = true
	}
	// 1. The manifests first, so that a browser cannot start a host
	// again while the rest goes.
	var manifests []installrec.Entry
	if hasRecord {
		manifests = rec.Of(installrec.Manifest)
	}
	for _, l := range locs {
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
		if filepath.Base(e.Path) != manifest.FileName {
			fail("the record lists %s as a manifest; not removing a file of another name", e.Path)
			continue
		}
		ok, err := manifest.Remove(filepath.Dir(e.Path))
		switch {
		case err != nil:
			fail("%s: %v", e.Path, err)
		case ok:
			removed++
			fmt.Fprintf(stdout, "removed %s (%s)\n", e.Path, e.Note)
		}
	}
	if !hasRecord {
		if removed == 0 {
			fmt.Fprintln(stdout, "no install record and no manifest naming this binary: nothing to remove here")
		}
		return exitOf(failed)
	}
	// 2. The hosts of this install that still run.
	var hosts []string
	for _, e := range rec.Of(installrec.File) {
		if filepath.Base(e.Path) == "webmcp-host" {
			hosts = append(hosts, e.Path)
		}
	}
	for _, pid := range stopHosts(hosts, stderr) {
		fmt.Fprintf(stdout, "stopped webmcp-host (pid %d); until you remove the extension, it reports that the host is missing\n", pid)
	}
	// 3. Binaries and the extension's folder.
	for _, e := range rec.Entries {
		var err error
		switch e.Kind {
		case installrec.File:
			if b := filepath.Base(e.Path); b != "webmcp-host" && b != "webmcp-shim" {
				fail("the record lists %s as a binary; not removing a file of another name", e.Path)
				continue
			}
			err = os.Remove(e.Path)
		case installrec.Tree:
			if filepath.Base(e.Path) != "extension" || filepath.Base(filepath.Dir(e.Path)) != "webmcp-bridge" {
				fail("the record lists %s as the extension's folder; not removing a folder elsewhere", e.Path)
				continue
			}
			if _, err = os.Lstat(e.Path); err == nil {
				err = os.RemoveAll(e.Path)
			}
		default:
			continue
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			fail("%v", err)
		default:
			removed++
			fmt.Fprintf(stdout, "removed %s\n", e.Path)
		}
	}
	// 4. The record, and the folders the install created, deepest first,
	// when nothing else is in them.
	if err := os.Remove(rec.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fail("%v", err)
	}
	var dirs []string
	for _, e := range rec.Of(installrec.Dir) {
		dirs = append(dirs, e.Path)
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		err := os.Remove(d)
		switch {
		case err == nil:
			removed++
			fmt.Fprintf(stdout, "removed folder %s\n", d)
		case errors.Is(err, fs.ErrNotExist):
		default:
			if entries, rerr := os.ReadDir(d); rerr == nil && len(entries) > 0 {
				fmt.Fprintf(stdout, "kept folder %s: it holds files the install did not write\n", d)
			} else {
				fail("%v", err)
			}
		}
	}
	if removed == 0 {
		fmt.Fprintln(stdout, "nothing left to remove: what the record listed is gone already")
	}
	return exitOf(failed)
}

func exitOf(failed bool) int {
	if failed {
		return 1
	}
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
